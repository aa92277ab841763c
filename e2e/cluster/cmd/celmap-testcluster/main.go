// celmap-testcluster starts a throwaway Kubernetes control plane on loopback for celmap's end-to-end
// tests: an embedded etcd and kube-apiserver (k8s.io/kubernetes, in-process) with
// MutatingAdmissionPolicy v1 served and the MutatingAdmissionPolicy and MutatingAdmissionWebhook
// admission plugins enabled. No controller-manager or scheduler runs.
//
// It prints one JSON line on stdout once /readyz answers 200:
//
//	{"kubeconfig": ..., "server": ..., "caFile": ..., "certFile": ..., "keyFile": ..., "token": ...,
//	 "etcd": ..., "dir": ..., "version": ..., "pid": ...}
//
// and stops everything (apiserver, etcd, the temporary directory) on SIGTERM, SIGINT or when its
// stdin is closed, so a test runner that dies takes the cluster with it.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

// kubeVersion is the k8s.io/kubernetes module version this binary is built from (see go.mod).
const kubeVersion = "v1.36.3"

// disabledPlugins are kube-apiserver 1.36's default-on admission plugins outside the minimal chain
// (k8s.io/kubernetes pkg/kubeapiserver/options/plugins.go DefaultOffAdmissionPlugins).
var disabledPlugins = []string{
	"LimitRanger", "ServiceAccount", "DefaultStorageClass", "PersistentVolumeClaimResize",
	"DefaultTolerationSeconds", "ResourceQuota", "StorageObjectInUseProtection", "PodGroupProtection",
	"Priority", "TaintNodesByCondition", "RuntimeClass", "CertificateApproval", "CertificateSigning",
	"ClusterTrustBundleAttest", "CertificateSubjectRestriction", "DefaultIngressClass", "PodSecurity",
	"PodTopologyLabels", "PodGroupWorkloadExists", "NodeDeclaredFeatureValidator", "JobValidation",
	"PodResizeValidator",
}

type ready struct {
	Kubeconfig string `json:"kubeconfig"`
	Server     string `json:"server"`
	CAFile     string `json:"caFile"`
	CAKeyFile  string `json:"caKeyFile"`
	CertFile   string `json:"certFile"`
	KeyFile    string `json:"keyFile"`
	Token      string `json:"token"`
	Etcd       string `json:"etcd"`
	Dir        string `json:"dir"`
	Version    string `json:"version"`
	PID        int    `json:"pid"`
	StartupMs  int64  `json:"startupMs"`
}

func main() {
	keep := flag.Bool("keep", false, "keep the temporary directory on exit (for debugging)")
	verbosity := flag.String("v", "0", "kube-apiserver log verbosity (klog -v)")
	timeout := flag.Duration("ready-timeout", 3*time.Minute, "how long to wait for /readyz")
	flag.Parse()
	if err := run(*keep, *verbosity, *timeout); err != nil {
		fmt.Fprintf(os.Stderr, "celmap-testcluster: %v\n", err)
		os.Exit(1)
	}
}

func run(keep bool, verbosity string, readyTimeout time.Duration) error {
	start := time.Now()
	dir, err := os.MkdirTemp("", "celmap-testcluster-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}

	// Stop on SIGTERM/SIGINT or stdin EOF. kube-apiserver installs its own handler for the same
	// signals (SetupSignalContext); a stdin EOF is turned into a SIGTERM to ourselves so both paths
	// shut the apiserver down the same way.
	stop := make(chan struct{})
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		io.Copy(io.Discard, os.Stdin)
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}()
	go func() {
		<-sigs
		close(stop)
		// A second signal means "now".
		<-sigs
		os.Exit(2)
	}()

	pki, err := writePKI(dir)
	if err != nil {
		return fmt.Errorf("certificates: %w", err)
	}

	etcd, etcdURL, err := startEtcd(dir)
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	defer func() {
		etcd.Close()
		<-etcd.Server.StopNotify()
	}()

	port, err := freePort()
	if err != nil {
		return err
	}
	server := fmt.Sprintf("https://127.0.0.1:%d", port)
	args := []string{
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--etcd-servers=" + etcdURL,
		"--etcd-prefix=/registry",
		"--tls-cert-file=" + pki.servingCert,
		"--tls-private-key-file=" + pki.servingKey,
		"--client-ca-file=" + pki.caCert,
		"--token-auth-file=" + pki.tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-key-file=" + pki.saKey,
		"--service-account-signing-key-file=" + pki.saKey,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--allow-privileged=true",
		// The "kubernetes" Service cannot point at a loopback address; no controller needs it.
		"--endpoint-reconciler-type=none",
		"--enable-priority-and-fairness=false",
		"--profiling=false",
		"--runtime-config=admissionregistration.k8s.io/v1=true",
		"--feature-gates=MutatingAdmissionPolicy=true",
		// The "minimal" admission chain of the oracle cases (../shared/conformance/map-oracle-cases.yaml):
		// mutating NamespaceLifecycle, MutatingAdmissionPolicy, MutatingAdmissionWebhook; every other
		// default-on plugin is off, so stored objects carry only the apiserver's own defaulting (no
		// service-account volume, priority, tolerations, Pod Security labels).
		"--enable-admission-plugins=NamespaceLifecycle,MutatingAdmissionPolicy,MutatingAdmissionWebhook,ValidatingAdmissionPolicy,ValidatingAdmissionWebhook",
		"--disable-admission-plugins=" + strings.Join(disabledPlugins, ","),
		"--cert-dir=" + filepath.Join(dir, "apiserver-certs"),
		"--v=" + verbosity,
	}
	cmd := app.NewAPIServerCommand()
	cmd.SetArgs(args)
	apiserverDone := make(chan error, 1)
	go func() { apiserverDone <- cmd.Execute() }()

	client, err := adminClient(pki)
	if err != nil {
		return err
	}
	if err := waitReady(client, server, readyTimeout, apiserverDone, stop); err != nil {
		return err
	}

	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	if err := writeKubeconfig(kubeconfig, server, pki); err != nil {
		return err
	}
	line, _ := json.Marshal(ready{
		Kubeconfig: kubeconfig, Server: server, CAFile: pki.caCert, CAKeyFile: pki.caKey,
		CertFile: pki.adminCert, KeyFile: pki.adminKey, Token: pki.token,
		Etcd: etcdURL, Dir: dir, Version: kubeVersion, PID: os.Getpid(),
		StartupMs: time.Since(start).Milliseconds(),
	})
	fmt.Println(string(line))

	select {
	case <-stop:
		// The apiserver saw the same signal; give it a moment to drain, then leave regardless.
		select {
		case <-apiserverDone:
		case <-time.After(20 * time.Second):
			fmt.Fprintln(os.Stderr, "celmap-testcluster: apiserver did not stop within 20s; exiting")
		}
		return nil
	case err := <-apiserverDone:
		if err == nil {
			err = errors.New("exited")
		}
		return fmt.Errorf("kube-apiserver: %w", err)
	}
}

func startEtcd(dir string) (*embed.Etcd, string, error) {
	clientPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	peerPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	cfg := embed.NewConfig()
	cfg.Name = "celmap-testcluster"
	cfg.Dir = filepath.Join(dir, "etcd")
	cfg.LogLevel = "error"
	cfg.Logger = "zap"
	clientURL := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", clientPort)}
	peerURL := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", peerPort)}
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = true // a throwaway store; fsync only slows the tests down
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, "", errors.New("not ready within 60s")
	}
	return e, clientURL.String(), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func adminClient(p *pkiFiles) (*http.Client, error) {
	caPEM, err := os.ReadFile(p.caCert)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	cert, err := tls.LoadX509KeyPair(p.adminCert, p.adminKey)
	if err != nil {
		return nil, err
	}
	return &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}},
	}, nil
}

func waitReady(c *http.Client, server string, timeout time.Duration, done <-chan error, stop <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	last := "no answer"
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, server+"/readyz", nil)
		resp, err := c.Do(req)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, body)
		} else {
			last = err.Error()
		}
		select {
		case err := <-done:
			return fmt.Errorf("kube-apiserver exited before it was ready: %v", err)
		case <-stop:
			return errors.New("stopped before the apiserver was ready")
		case <-ctx.Done():
			return fmt.Errorf("/readyz not 200 within %s (last: %s)", timeout, last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}
