package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pkiFiles are the files the apiserver and its clients use, all under the run's temporary directory.
type pkiFiles struct {
	caCert, caKey           string
	servingCert, servingKey string
	adminCert, adminKey     string
	saKey                   string
	tokenFile, token        string
}

type keyPair struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	der  []byte
}

func writePKI(dir string) (*pkiFiles, error) {
	pkiDir := filepath.Join(dir, "pki")
	if err := os.MkdirAll(pkiDir, 0o700); err != nil {
		return nil, err
	}
	p := &pkiFiles{
		caCert: filepath.Join(pkiDir, "ca.crt"), caKey: filepath.Join(pkiDir, "ca.key"),
		servingCert: filepath.Join(pkiDir, "apiserver.crt"), servingKey: filepath.Join(pkiDir, "apiserver.key"),
		adminCert: filepath.Join(pkiDir, "admin.crt"), adminKey: filepath.Join(pkiDir, "admin.key"),
		saKey: filepath.Join(pkiDir, "sa.key"), tokenFile: filepath.Join(pkiDir, "tokens.csv"),
	}
	ca, err := newCert(nil, &x509.Certificate{
		Subject:               pkix.Name{CommonName: "celmap-testcluster-ca"},
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	})
	if err != nil {
		return nil, err
	}
	serving, err := newCert(ca, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.96.0.1")},
	})
	if err != nil {
		return nil, err
	}
	admin, err := newCert(ca, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return nil, err
	}
	for _, w := range []struct {
		kp             *keyPair
		certPath, path string
	}{{ca, p.caCert, p.caKey}, {serving, p.servingCert, p.servingKey}, {admin, p.adminCert, p.adminKey}} {
		if err := writePair(w.kp, w.certPath, w.path); err != nil {
			return nil, err
		}
	}
	sa, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	if err := writeKey(sa, p.saKey); err != nil {
		return nil, err
	}
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	p.token = hex.EncodeToString(tok)
	line := fmt.Sprintf("%s,admin,admin-uid,\"system:masters\"\n", p.token)
	if err := os.WriteFile(p.tokenFile, []byte(line), 0o600); err != nil {
		return nil, err
	}
	return p, nil
}

func newCert(parent *keyPair, tmpl *x509.Certificate) (*keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(7 * 24 * time.Hour)
	signer, signerKey := tmpl, key
	if parent != nil {
		signer, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &keyPair{cert: cert, key: key, der: der}, nil
}

func writePair(kp *keyPair, certPath, keyPath string) error {
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: kp.der}), 0o600); err != nil {
		return err
	}
	return writeKey(kp.key, keyPath)
}

func writeKey(key *ecdsa.PrivateKey, path string) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}

func writeKubeconfig(path, server string, p *pkiFiles) error {
	b64 := func(file string) (string, error) {
		b, err := os.ReadFile(file)
		return base64.StdEncoding.EncodeToString(b), err
	}
	ca, err := b64(p.caCert)
	if err != nil {
		return err
	}
	cert, err := b64(p.adminCert)
	if err != nil {
		return err
	}
	key, err := b64(p.adminKey)
	if err != nil {
		return err
	}
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: celmap-testcluster
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: admin@celmap-testcluster
  context:
    cluster: celmap-testcluster
    user: admin
current-context: admin@celmap-testcluster
`, server, ca, cert, key)
	return os.WriteFile(path, []byte(cfg), 0o600)
}
