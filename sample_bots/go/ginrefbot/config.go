package ginrefbot

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// MaxStreams bounds GINREF_MATCHES: more streams than this is surely a typo.
const MaxStreams = 64

// Config is the launch environment: where the referee is, the token, and for a hosted referee
// the TLS files and how many matches to play at once (the variables are those of
// sample_bots/client.py, with the same meaning and the same errors).
type Config struct {
	Address    string
	Token      string
	CACert     string // GINREF_CA_CERT: TLS, trusting this CA alone ("": plain text)
	ClientCert string // GINREF_CLIENT_CERT and GINREF_CLIENT_KEY: mutual TLS
	ClientKey  string
	ServerName string // GINREF_SERVER_NAME: the name the referee's certificate must carry
	Matches    int    // GINREF_MATCHES: streams at once, one match each
}

func env(name string) string { return strings.TrimSpace(os.Getenv(name)) }

// ConfigFromEnv reads the launch environment; an error is one line for stderr (exit 2).
func ConfigFromEnv() (Config, error) {
	c := Config{
		Address:    env("GINREF_ADDRESS"),
		Token:      env("GINREF_TOKEN"),
		CACert:     env("GINREF_CA_CERT"),
		ClientCert: env("GINREF_CLIENT_CERT"),
		ClientKey:  env("GINREF_CLIENT_KEY"),
		ServerName: env("GINREF_SERVER_NAME"),
	}
	if c.Address == "" || c.Token == "" {
		return c, errors.New("GINREF_ADDRESS and GINREF_TOKEN must be set (the referee " +
			"sets them when it starts the bot; a hosted referee's organiser gives them to you)")
	}
	if (c.ClientCert == "") != (c.ClientKey == "") {
		return c, errors.New("GINREF_CLIENT_CERT and GINREF_CLIENT_KEY go together: " +
			"set both or neither")
	}
	if c.ClientCert != "" && c.CACert == "" {
		return c, errors.New("GINREF_CLIENT_CERT needs GINREF_CA_CERT: a client certificate is for TLS")
	}
	text := env("GINREF_MATCHES")
	if text == "" {
		text = "1"
	}
	n, err := strconv.Atoi(text)
	if err != nil || strings.ContainsAny(text, "+-") || n < 1 || n > MaxStreams {
		return c, fmt.Errorf("GINREF_MATCHES=%q: expected a whole number, 1 to %d", text, MaxStreams)
	}
	c.Matches = n
	return c, nil
}

// readPEM reads the file a variable names and checks that it holds a PEM block of that kind.
func readPEM(variable, path, what, mark string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pathErr *os.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err
		}
		return nil, fmt.Errorf("cannot read %s %q: %v", variable, path, err)
	}
	if !bytes.Contains(data, []byte(mark)) {
		return nil, fmt.Errorf("%s %q is not a PEM %s", variable, path, what)
	}
	return data, nil
}

// Credentials is how to dial the referee: TLS when GINREF_CA_CERT is set (its files read
// now), else plain text; an error is one line for stderr (exit 2).
func (c Config) Credentials() (grpc.DialOption, error) {
	if c.CACert == "" {
		return grpc.WithInsecure(), nil
	}
	ca, err := readPEM("GINREF_CA_CERT", c.CACert, "certificate", "-----BEGIN CERTIFICATE-----")
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("GINREF_CA_CERT %q holds no certificate Go can read", c.CACert)
	}
	// Go verifies the certificate against the address's host unless ServerName says otherwise.
	config := &tls.Config{RootCAs: pool, ServerName: c.ServerName, MinVersion: tls.VersionTLS12}
	if c.ClientCert != "" {
		cert, err := readPEM("GINREF_CLIENT_CERT", c.ClientCert, "certificate",
			"-----BEGIN CERTIFICATE-----")
		if err != nil {
			return nil, err
		}
		key, err := readPEM("GINREF_CLIENT_KEY", c.ClientKey, "private key", "PRIVATE KEY-----")
		if err != nil {
			return nil, err
		}
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("GINREF_CLIENT_CERT %q and GINREF_CLIENT_KEY %q: %v",
				c.ClientCert, c.ClientKey, err)
		}
		config.Certificates = []tls.Certificate{pair}
	}
	return grpc.WithTransportCredentials(credentials.NewTLS(config)), nil
}
