package testkit

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// fakeCert is the certificate every TLS fake of a test process serves: one
// ECDSA P-256 key made at the first use. httptest's own certificate is RSA,
// whose signature in each TLS handshake was a second of CPU in a run of the
// end-to-end tests; an ECDSA signature costs a fiftieth of it.
var fakeCert = sync.OnceValues(func() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{Organization: []string{"gh-ocdx tests"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost", GHESHost},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
})

// GHESHost is a name the fakes' certificate holds besides the loopback
// addresses: a host without a port, for clients (gh) that drop a remote
// URL's port, reached through a proxy that connects it to a fake.
const GHESHost = "ghes.test"

// fakeCertPEM is fakeCert as a CA file, the value for SSL_CERT_FILE.
func fakeCertPEM() ([]byte, error) {
	c, err := fakeCert()
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate[0]}), nil
}

// NewTLSServer starts h over TLS with the certificate the fakes serve, so
// a client that trusts the fake GitHub trusts it; it stops when the test
// ends. It serves HTTP/1.1 as httptest's StartTLS does, without
// StartTLS's parse of httptest's RSA key on every start (a quarter of a
// second of CPU in a run of the end-to-end tests, for a key never used).
// The key exchange is X25519 alone: a Go client offers it beside the
// hybrid post-quantum one, whose work is a fifth of a handshake's CPU,
// and every client of the fakes (go-gh, gh, git) speaks it.
func NewTLSServer(t T, h http.Handler) *httptest.Server {
	t.Helper()
	c, err := fakeCert()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{c}, NextProtos: []string{"http/1.1"},
		CurvePreferences: []tls.CurveID{tls.X25519}}
	srv.Listener = tls.NewListener(srv.Listener, srv.TLS)
	srv.Start()
	srv.URL = "https://" + srv.Listener.Addr().String()
	t.Cleanup(srv.Close)
	return srv
}
