package targets

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/transport"
	"github.com/nlutest/nlutest/spec"
)

// connAttrs are the connection settings of the kinds that call an HTTP
// service they are told the URL of (http, rasa):
//
//	redirects   = "same-origin"     # default "none": a 3xx is an HTTPError naming its Location
//	ca_file     = "certs/ca.pem"    # PEM certificates trusted besides the system's
//	client_cert = "certs/client.pem" # a client certificate (PEM), with client_key
//	client_key  = "certs/client.key"
//
// Paths are relative to the file declaring the target; every value may use
// var, but not a sensitive variable.
var connAttrs = []hcl.AttributeSchema{{Name: "redirects"}, {Name: "ca_file"}, {Name: "client_cert"}, {Name: "client_key"}}

// connConfig is what connAttrs decode to.
type connConfig struct {
	Redirects                     string
	CAFile, ClientCert, ClientKey string
	// ranges locate each attribute, for problems found when the files are
	// read (at the run's start).
	ranges map[string]hcl.Range
}

// withConnAttrs returns attrs followed by connAttrs.
func withConnAttrs(attrs ...hcl.AttributeSchema) []hcl.AttributeSchema {
	return append(attrs, connAttrs...)
}

// decodeConn reads the connection settings from a kind block's attributes.
func decodeConn(d *spec.TargetDecoder, attrs hcl.Attributes) (*connConfig, bool) {
	c := &connConfig{ranges: map[string]hcl.Range{}}
	ok := true
	for _, a := range connAttrs {
		if at, has := attrs[a.Name]; has {
			c.ranges[a.Name] = at.Expr.Range()
		}
	}
	c.Redirects = d.String(attrs, "redirects", transport.RedirectNone)
	if c.Redirects != transport.RedirectNone && c.Redirects != transport.RedirectSameOrigin {
		rng := c.ranges["redirects"]
		d.Errorf(&rng, "Invalid redirects", "redirects is %q (follow none: a 3xx is an error naming where it pointed) or %q (follow redirects to the same scheme, host and port that keep the method, without Referer), not %q.",
			transport.RedirectNone, transport.RedirectSameOrigin, c.Redirects)
		ok = false
	}
	c.CAFile = d.File(attrs, "ca_file", "CA file", spec.MaxCertBytes, true)
	c.ClientCert = d.File(attrs, "client_cert", "client certificate", spec.MaxCertBytes, true)
	c.ClientKey = d.File(attrs, "client_key", "client key", spec.MaxCertBytes, true)
	if (c.ClientCert == "") != (c.ClientKey == "") {
		name, rng := "client_cert", c.ranges["client_cert"]
		if c.ClientCert == "" {
			name, rng = "client_key", c.ranges["client_key"]
		}
		d.Errorf(&rng, "Incomplete client certificate", "%s is set without %s: a client certificate needs both the certificate (client_cert) and its private key (client_key), as PEM files.", name, map[string]string{"client_cert": "client_key", "client_key": "client_cert"}[name])
		ok = false
	}
	return c, ok
}

// apply sets the redirect policy and TLS configuration on p, reading the
// certificate files under the suite's file rules (fa); a problem with them
// is a *runner.ConfigError at the attribute.
func (c *connConfig) apply(p *transport.Policy, fa spec.FileAccess) error {
	if c == nil {
		return nil
	}
	p.Redirects = c.Redirects
	if c.CAFile == "" && c.ClientCert == "" {
		return nil
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.CAFile != "" {
		pem, _, err := fa.Read("", c.CAFile, spec.MaxCertBytes)
		if err != nil {
			return c.configError("ca_file", "Cannot read CA file", spec.FileError(err)+".")
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return c.configError("ca_file", "Invalid CA file", fmt.Sprintf("%s holds no PEM certificate.", c.CAFile))
		}
		conf.RootCAs = pool
	}
	if c.ClientCert != "" {
		cert, err := c.keyPair(fa)
		if err != nil {
			return c.configError("client_cert", "Invalid client certificate", fmt.Sprintf("Reading %s and %s: %v.", c.ClientCert, c.ClientKey, err))
		}
		conf.Certificates = []tls.Certificate{cert}
	}
	p.TLS = conf
	return nil
}

// keyPair reads the client certificate and its key.
func (c *connConfig) keyPair(fa spec.FileAccess) (tls.Certificate, error) {
	certPEM, _, err := fa.Read("", c.ClientCert, spec.MaxCertBytes)
	if err != nil {
		return tls.Certificate{}, errors.New(spec.FileError(err))
	}
	keyPEM, _, err := fa.Read("", c.ClientKey, spec.MaxCertBytes)
	if err != nil {
		return tls.Certificate{}, errors.New(spec.FileError(err))
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

func (c *connConfig) configError(attr, summary, detail string) error {
	rng := c.ranges[attr]
	return &runner.ConfigError{Diags: hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: &rng}}}
}
