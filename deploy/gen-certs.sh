#!/bin/sh
# Self-signed serving certificate for celmap's webhook, without cert-manager.
#
#   deploy/gen-certs.sh [namespace] [service]     (defaults: celmap celmap-webhook)
#
# Makes a CA and a serving certificate (ECDSA P-256, 1 year) for <service>.<namespace>.svc with
# openssl, writes the Secret manifest (type kubernetes.io/tls, name celmap-webhook-tls) to
# ./celmap-webhook-tls.yaml, and prints the base64 CA bundle for the MutatingWebhookConfiguration
# (helm: --set webhook.caBundle=<it>; plain manifests: put it in clientConfig.caBundle).
# Rotation: run it again, apply the Secret (the server reloads the files on change) and the new
# caBundle. The CA key is removed; keep it only if you want to re-sign.
set -eu
ns="${1:-celmap}"
svc="${2:-celmap-webhook}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cd "$dir"
openssl ecparam -name prime256v1 -genkey -noout -out ca.key
openssl req -x509 -new -key ca.key -subj "/CN=celmap webhook CA" -days 365 -out ca.crt
printf 'subjectAltName=DNS:%s.%s.svc,DNS:%s.%s.svc.cluster.local\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature\n' "$svc" "$ns" "$svc" "$ns" > ext
openssl ecparam -name prime256v1 -genkey -noout -out tls.key
openssl req -new -key tls.key -subj "/CN=$svc.$ns.svc" -out tls.csr
openssl x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 365 -extfile ext -out tls.crt
b64() { base64 < "$1" | tr -d '\n'; }
cd - > /dev/null
cat > celmap-webhook-tls.yaml <<YAML
apiVersion: v1
kind: Secret
metadata:
  name: celmap-webhook-tls
  namespace: $ns
type: kubernetes.io/tls
data:
  tls.crt: $(b64 "$dir/tls.crt")
  tls.key: $(b64 "$dir/tls.key")
  ca.crt: $(b64 "$dir/ca.crt")
YAML
echo "wrote celmap-webhook-tls.yaml; caBundle:" >&2
b64 "$dir/ca.crt"
echo
