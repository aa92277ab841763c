import { X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodePem } from "./x509-decode.js";
import { err, run, v, type Outcome } from "./test-harness.js";

// The certificate of kyverno/sdk extensions/cel/libs/x509/impl_test.go.
const testCert = `-----BEGIN CERTIFICATE-----
MIIC7TCCAdWgAwIBAgIBADANBgkqhkiG9w0BAQsFADAYMRYwFAYDVQQDDA0qLmt5
dmVybm8uc3ZjMB4XDTIyMTAxMDExNDYzMloXDTIzMTAxMDEyNDYzMlowGDEWMBQG
A1UEAwwNKi5reXZlcm5vLnN2YzCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoC
ggEBAOKF+2P0Ufp855hpdsGD4lYkd6oU7HZAOWm1XskAMwrdsqWwTNNAinyHRoPQ
IbNbGDQ+r6Cggc2mlxHJ90PnC2weHj5otaD17Z+ARZpJZ4HMWkEfFt8sxwo9vuQJ
RWihqNwFheowjswoSB1DHnPufrZHfztkMoRx278ZfHaIMdlSTg50ektkNDoHA3OJ
sxxw54X3HR1iq6SZwN8xNT0TI6B6BbfAYWMNmKCiZ2iV6kW//XnTEqGd2WcmhuP0
SjwO4tCJbj9oV6+Bj/uhFr7J4foErMaodYDBtQs/ul2tcAwSBHfnC2KcLbiZTZsC
0Rs0WPJ4YwF/cOsD7Z/RmLs4FHsCAwEAAaNCMEAwDgYDVR0PAQH/BAQDAgKkMA8G
A1UdEwEB/wQFMAMBAf8wHQYDVR0OBBYEFJaK+3Wfnf7rVkYBzMCLSaV56NMqMA0G
CSqGSIb3DQEBCwUAA4IBAQDY7F6b+t9BX7098JyGk6zeT39MoLdSv+8IaKXn+m8G
yOKn3CZkruko57ycvPd4taC0gggtmUYynFhwPMQr+boNrrK9rat8Jw3yPPsBq/8D
/s6tvwxSNXBfPUI5OvNIB/hA5XpJpdHQaCkYm+FWkcJsolkkbSOfVjUjImW26JHB
nnPPtR4Y7dx0SVoPS19IC0T5RmdvgqlXj4XbhTnX3QOujVHn8u+wQ8po7EngHDQs
+onfkp8ipe0QpEJL1ZdW2LhyDXGKrZ2y8UPZ9wYNzxHWaj1Thu4B9YFdsPUwWqSx
n9e+FygpoktlD8YgT7jwgiVKX7Koz++zyvMIdhvRrtgS
-----END CERTIFICATE-----`;
const N = "28595925905962223424520947352207105451744616797088171943239289907331901888529856098458304611629660120574607501039902142361333982065793213267074854658525100799280158707840279479550961169213763526857247298653141711003931642606662052674943191476488665842309583311097351331994267413776792462637192775240062778036062353517979538994974045127175206597906751521558536719043095219698535279694800624795673809356898452438518041024126624051887044932164506019573725987204208750674129677584956156611454245004918943771571492757639432459688931855526941886354880727024912384140238027697348634609952850513122734230521040730560514233467";

describe("x509 library (kyverno/sdk impl_test.go)", () => {
  it.each<[string, Outcome]>([
    [`x509.decode(object).IsCA`, v(true)],
    [`x509.decode(object).BasicConstraintsValid`, v(true)],
    [`x509.decode(object).KeyUsage`, v(37)],
    [`x509.decode(object).SerialNumber`, v(0)],
    [`x509.decode(object).PublicKeyAlgorithm`, v(1)],
    [`x509.decode(object).MaxPathLen`, v(-1)],
    [`x509.decode(object).MaxPathLenZero`, v(false)],
    [`x509.decode(object).NotBefore`, v("2022-10-10T11:46:32Z")],
    [`x509.decode(object).NotAfter`, v("2023-10-10T12:46:32Z")],
    [`x509.decode(object).Issuer.CommonName`, v("*.kyverno.svc")],
    [`x509.decode(object).Issuer.SerialNumber`, v("")],
    [`x509.decode(object).PublicKey.E`, v(65537)],
    [`x509.decode(object).PublicKey.N`, v(N)],
    [`size(x509.decode(object).Extensions)`, v(3n)],
    [`x509.decode(object).Extensions[0].Critical`, v(true)],
    [`x509.decode(object).Extensions.map(e, e.Id)`, v([[2, 5, 29, 15], [2, 5, 29, 19], [2, 5, 29, 14]])],
    [`x509.decode(object).Issuer.Names`, v([new Map<string, unknown>([["Type", [2, 5, 4, 3]], ["Value", "*.kyverno.svc"]])])],
    [`x509.decode(object).Issuer.Organization == null`, v(true)],
    [`x509.decode(object).DNSNames == null && x509.decode(object).ExtKeyUsage == null`, v(true)],
    [`["Raw", "RawIssuer", "RawSubject", "RawSubjectPublicKeyInfo", "RawTBSCertificate", "Signature"].all(k, k in x509.decode(object))`, v(true)],
    [`x509.decode("not a valid PEM")`, err("failed to decode PEM block")],
    [`x509.decode("-----BEGIN PRIVATE KEY-----\\nAAAA\\n-----END PRIVATE KEY-----")`, err("PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST")],
    [`x509.decode("-----BEGIN CERTIFICATE-----\\nMAA=\\n-----END CERTIFICATE-----")`, err("x509: malformed certificate")],
  ])("%s", (expr, want) => {
    expect(run(expr, {}, { object: testCert })).toEqual(want);
  });

  it("agrees with node:crypto on the fields both expose", () => {
    const node = new X509Certificate(testCert);
    const out = decodePem(testCert) as Record<string, unknown>;
    expect(out.Raw).toBe(node.raw.toString("base64"));
    expect(Date.parse(out.NotBefore as string)).toBe(Date.parse(node.validFrom));
    expect(Date.parse(out.NotAfter as string)).toBe(Date.parse(node.validTo));
    const jwk = node.publicKey.export({ format: "jwk" });
    expect(BigInt((out.PublicKey as { N: string }).N)).toBe(BigInt(`0x${Buffer.from(jwk.n!, "base64url").toString("hex")}`));
    expect(out.IsCA).toBe(node.ca);
  });

  it.each([`x509.decode(1)`, `x509.decode()`, `x509.parse("x")`])("rejects %s at compile time", (expr) => {
    expect(run(expr)).toHaveProperty("compileError");
  });
});
