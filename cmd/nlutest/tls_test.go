package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writePEM writes one PEM block to dir/name.
func writePEM(t *testing.T, dir, name, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// clientCert makes a self-signed client certificate and its key.
func clientCert(t *testing.T) (*x509.Certificate, []byte, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "nlutest 客户端"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return cert, der, keyDER
}

// TestTLSOptions: an http target trusts the CA in ca_file and presents
// client_cert/client_key to a service that requires a client certificate;
// without them the call fails, and broken settings are exit 2 at the
// attribute.
func TestTLSOptions(t *testing.T) {
	cert, certDER, keyDER := clientCert(t)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"intent":{"name":"订机票"}}`))
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	srv.StartTLS()
	t.Cleanup(srv.Close)

	cases := []struct {
		name, attrs string
		code        int
		want        string
	}{
		{"ca and client certificate", `ca_file = "ca.pem"
    client_cert = "client.pem"
    client_key  = "client.key"`, ExitPass, ""},
		{"no ca", `client_cert = "client.pem"
    client_key  = "client.key"`, ExitFail, ""},
		{"no client certificate", `ca_file = "ca.pem"`, ExitFail, ""},
		{"key without certificate", `ca_file = "ca.pem"
    client_key = "client.key"`, ExitInvalid, "Incomplete client certificate"},
		{"missing ca file", `ca_file = "nowhere.pem"`, ExitInvalid, "Cannot read CA file"},
		{"not a certificate", `ca_file = "client.key"`, ExitInvalid, "Invalid CA file"},
		{"bad redirects", `redirects = "all"`, ExitInvalid, "Invalid redirects"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeSuite(t, `
suite "证书" {}
variable "url" {}
target "nlu" {
  http {
    url = var.url
    `+c.attrs+`
  }
  retries = 0
}
materials "城市" { values = ["北京"] }
template "订票" {
  text   = "去{城市}"
  expect = { "$.intent.name" = "订机票" }
}
`)
			writePEM(t, dir, "ca.pem", "CERTIFICATE", srv.Certificate().Raw)
			writePEM(t, dir, "client.pem", "CERTIFICATE", certDER)
			writePEM(t, dir, "client.key", "EC PRIVATE KEY", keyDER)
			code, out, errs := runCLI(t, dir, nil, "run", dir, "--var", "url="+srv.URL, "--out", filepath.Join(dir, "run"))
			if code != c.code && !(c.code == ExitFail && code == ExitCannotRun) {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errs)
			}
			if c.want != "" && (!strings.Contains(errs, c.want) || !strings.Contains(errs, "suite.nlutest.hcl:")) {
				t.Errorf("stderr lacks %q at file:line:\n%s", c.want, errs)
			}
		})
	}
}
