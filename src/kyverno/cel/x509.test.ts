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

// Generated with OpenSSL 3 (RSA 1024, serial 4660) with the extensions Go parses; expected values follow Go's crypto/x509.
const richCert = `-----BEGIN CERTIFICATE-----
MIIDYTCCAsqgAwIBAgICEjQwDQYJKoZIhvcNAQELBQAwSjELMAkGA1UEBhMCVVMx
EDAOBgNVBAoMB0t5dmVybm8xDzANBgNVBAsMBlBvbGljeTEYMBYGA1UEAwwPdGVz
dC5reXZlcm5vLmlvMB4XDTI2MTEyMTIxNTMyMFoXDTM2MTExODIxNTMyMFowSjEL
MAkGA1UEBhMCVVMxEDAOBgNVBAoMB0t5dmVybm8xDzANBgNVBAsMBlBvbGljeTEY
MBYGA1UEAwwPdGVzdC5reXZlcm5vLmlvMIGfMA0GCSqGSIb3DQEBAQUAA4GNADCB
iQKBgQDLHEJGlK3utRVg5uLCTu/jiw4NLA8EZ0I92FPDwXeO0TCO+PW6YF5uGtwC
En+pzqPEmxj6rSqAGMwco42vpuz+oIeVqW/UfkTK+I/9bq1CctffueaAlRMrEhNf
Rk+9xXy1a12xf2jx0ns9W1psDImh3tpZ22Z/o8UPJcmtuPQDgQIDAQABo4IBVDCC
AVAwTgYDVR0RBEcwRYINYS5leGFtcGxlLmNvbYINYi5leGFtcGxlLmNvbYcECgAA
AYcQIAENuAAAAAAAAAAAAAAAAYENeEBleGFtcGxlLmNvbTAOBgNVHQ8BAf8EBAMC
BaAwHQYDVR0lBBYwFAYIKwYBBQUHAwEGCCsGAQUFBwMCMAwGA1UdEwEB/wQCMAAw
XQYIKwYBBQUHAQEEUTBPMCMGCCsGAQUFBzABhhdodHRwOi8vb2NzcC5leGFtcGxl
LmNvbTAoBggrBgEFBQcwAoYcaHR0cDovL2NhLmV4YW1wbGUuY29tL2NhLmNydDAu
BgNVHR8EJzAlMCOgIaAfhh1odHRwOi8vY3JsLmV4YW1wbGUuY29tL2NhLmNybDAT
BgNVHSAEDDAKMAgGBmeBDAECATAdBgNVHQ4EFgQUefPFkW4FoMLET4X4ghVzAt15
HigwDQYJKoZIhvcNAQELBQADgYEAwYwCYU1gCTj3ohbCXOf7mMYXmA3cu3ctXcWd
8njXvzFsA6vHMPU7HHGmXFufrg98Ij9J9xDg1zNWSI0CemdG0tqrQziUu6f9wjd2
xNaQJGkJNiDBLzCOOlsfdGvRVx+G+fJRrBZ9m4tk7lXxn4joD5V3hsJfxQR7Ip8M
9shmmd4=
-----END CERTIFICATE-----`;
const csr = `-----BEGIN CERTIFICATE REQUEST-----
MIIB6zCCAVQCAQAwSjELMAkGA1UEBhMCVVMxEDAOBgNVBAoMB0t5dmVybm8xDzAN
BgNVBAsMBlBvbGljeTEYMBYGA1UEAwwPdGVzdC5reXZlcm5vLmlvMIGfMA0GCSqG
SIb3DQEBAQUAA4GNADCBiQKBgQDLHEJGlK3utRVg5uLCTu/jiw4NLA8EZ0I92FPD
wXeO0TCO+PW6YF5uGtwCEn+pzqPEmxj6rSqAGMwco42vpuz+oIeVqW/UfkTK+I/9
bq1CctffueaAlRMrEhNfRk+9xXy1a12xf2jx0ns9W1psDImh3tpZ22Z/o8UPJcmt
uPQDgQIDAQABoGEwXwYJKoZIhvcNAQkOMVIwUDBOBgNVHREERzBFgg1hLmV4YW1w
bGUuY29tgg1iLmV4YW1wbGUuY29thwQKAAABhxAgAQ24AAAAAAAAAAAAAAABgQ14
QGV4YW1wbGUuY29tMA0GCSqGSIb3DQEBCwUAA4GBAE2j7tB6x//HQ9qLbug6b/nC
KH10fm07ltqENzzQw8RdoDEAMvhUH+EsTPC/TibyFgV+0a689j9os+QVI44NiepK
dZtOGQcrp+YsxyLPUxaIXRO3g1Kj5mnm0OEhau9h8Lnl/pfAXY/qHAKoG1iK0D4s
bROZZNjL9AuWw1GlQycS
-----END CERTIFICATE REQUEST-----`;

describe("x509 library (extensions, requests)", () => {
  it.each<[string, Outcome]>([
    [`x509.decode(object).KeyUsage`, v(5)],
    [`x509.decode(object).ExtKeyUsage`, v([1, 2])],
    [`x509.decode(object).SerialNumber`, v(4660)],
    [`[x509.decode(object).BasicConstraintsValid, x509.decode(object).IsCA, x509.decode(object).MaxPathLenZero]`, v([true, false, false])],
    [`x509.decode(object).MaxPathLen`, v(-1)],
    [`x509.decode(object).DNSNames`, v(["a.example.com", "b.example.com"])],
    [`x509.decode(object).IPAddresses`, v(["10.0.0.1", "2001:db8::1"])],
    [`x509.decode(object).EmailAddresses`, v(["x@example.com"])],
    [`x509.decode(object).OCSPServer`, v(["http://ocsp.example.com"])],
    [`x509.decode(object).IssuingCertificateURL`, v(["http://ca.example.com/ca.crt"])],
    [`x509.decode(object).CRLDistributionPoints`, v(["http://crl.example.com/ca.crl"])],
    [`x509.decode(object).PolicyIdentifiers`, v([[2, 23, 140, 1, 2, 1]])],
    [`x509.decode(object).Issuer.Country + x509.decode(object).Issuer.Organization + x509.decode(object).Issuer.OrganizationalUnit`, v(["US", "Kyverno", "Policy"])],
    [`x509.decode(object).Issuer.CommonName`, v("test.kyverno.io")],
    [`x509.decode(object).AuthorityKeyId`, v(null)], // OpenSSL omits the AKI of a self-signed certificate; Go's nil slice
    [`x509.decode(object).Extensions.map(e, e.Id[3])`, v([17, 15, 37, 19, 1, 31, 32, 14])],
    [`x509.decode(object).Extensions.filter(e, e.Critical).map(e, e.Id)`, v([[2, 5, 29, 15], [2, 5, 29, 19]])],
  ])("%s", (expr, want) => {
    expect(run(expr, {}, { object: richCert })).toEqual(want);
  });

  it.each<[string, Outcome]>([
    [`x509.decode(object).Subject.CommonName`, v("test.kyverno.io")],
    [`x509.decode(object).Subject.Country`, v(["US"])],
    [`x509.decode(object).DNSNames`, v(["a.example.com", "b.example.com"])],
    [`x509.decode(object).IPAddresses`, v(["10.0.0.1", "2001:db8::1"])],
    [`x509.decode(object).Version`, v(0)],
    [`x509.decode(object).SignatureAlgorithm`, v(4)],
    [`x509.decode(object).PublicKeyAlgorithm`, v(1)],
    [`size(x509.decode(object).Extensions)`, v(1n)],
  ])("request: %s", (expr, want) => {
    expect(run(expr, {}, { object: csr })).toEqual(want);
  });

  it("agrees with node:crypto on the subject alternative names", () => {
    const node = new X509Certificate(richCert);
    expect(node.subjectAltName).toBe("DNS:a.example.com, DNS:b.example.com, IP Address:10.0.0.1, IP Address:2001:DB8:0:0:0:0:0:1, email:x@example.com");
    expect(node.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"]);
    expect((decodePem(richCert) as { Raw: string }).Raw).toBe(node.raw.toString("base64"));
  });
});
