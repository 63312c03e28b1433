#!/usr/bin/env python3
"""Key pairs, a JWK Set and JSON Web Tokens for trying TodoServer's JWT owners locally.

Uses Python's `cryptography` only (no JWT library): an implementation independent of the server's,
which is why the tests make their tokens with it too (`sign`).

  scripts/dev-tokens.py keys DIR [--kid-prefix P]
      Makes an RSA 2048, a P-256 and an Ed25519 key pair in DIR (private keys as PEM, mode 0600;
      never commit them) and DIR/jwks.json, their public JWK Set (kids Prsa, Pec, Ped25519), for
      the server's jwtJwksFile.
  scripts/dev-tokens.py token DIR --owner alice --issuer ISS --audience AUD [--alg RS256|ES256|EdDSA]
                        [--expires-in SECONDS] [--scope "todos:read"] [--owner-claim sub]
      Prints one token for each --owner (one per line), signed by DIR's key for --alg.
  scripts/dev-tokens.py sign < SPEC
      For the tests: SPEC is {"tokens": [{"header": TEXT, "payload": TEXT, "dir": DIR,
      "key": "rsa" | "ec" | "ed25519" | "hmac-rsa-public-pem" | "none", "ecdsa": "raw" | "der"}]};
      header and payload are taken as given (so they may be anything, duplicate members included),
      base64url-encoded and signed; prints the tokens as a JSON array, in order.
  scripts/dev-tokens.py serve DIR [--port 8443]
      Serves DIR/jwks.json over HTTPS at https://127.0.0.1:PORT/jwks.json, as a provider serves its
      jwks_uri, for the server's jwtJwksUrl: its certificate is signed by a certificate authority
      made for it, DIR/ca.pem, which the server trusts through jwtJwksCaFile. Prints "port N" once
      it listens (--port 0: any free port). Each request adds a line to DIR/requests.log; when
      present, DIR/status holds the answer's status and DIR/cache-control its Cache-Control (the
      tests play a provider that rotates keys, goes down or changes its mind with these files).
"""
import argparse
import base64
import datetime
import http.server
import ipaddress
import json
import os
import ssl
import sys
import time

from cryptography import x509
from cryptography.x509.oid import NameOID
from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

KINDS = {"rsa": "RS256", "ec": "ES256", "ed25519": "EdDSA"}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def integer_bytes(value: int, length: int = 0) -> bytes:
    return value.to_bytes(max(length, (value.bit_length() + 7) // 8), "big")


def public_jwk(kind: str, private_key, kid: str) -> dict:
    public = private_key.public_key()
    jwk = {"kid": kid, "use": "sig", "alg": KINDS[kind]}
    if kind == "rsa":
        numbers = public.public_numbers()
        jwk.update(kty="RSA", n=b64url(integer_bytes(numbers.n)), e=b64url(integer_bytes(numbers.e)))
    elif kind == "ec":
        numbers = public.public_numbers()
        jwk.update(kty="EC", crv="P-256", x=b64url(integer_bytes(numbers.x, 32)), y=b64url(integer_bytes(numbers.y, 32)))
    else:
        raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        jwk.update(kty="OKP", crv="Ed25519", x=b64url(raw))
    return jwk


def load_key(directory: str, kind: str):
    with open(os.path.join(directory, f"{kind}.pem"), "rb") as file:
        return serialization.load_pem_private_key(file.read(), password=None)


def keys_command(arguments) -> None:
    directory = arguments.dir
    os.makedirs(directory, mode=0o700, exist_ok=True)
    if not arguments.force and any(os.path.exists(os.path.join(directory, f"{kind}.pem")) for kind in KINDS):
        sys.exit(f"{directory} already holds keys; --force replaces them")
    made = {
        "rsa": rsa.generate_private_key(public_exponent=65537, key_size=arguments.rsa_bits),
        "ec": ec.generate_private_key(ec.SECP256R1()),
        "ed25519": ed25519.Ed25519PrivateKey.generate(),
    }
    jwks = {"keys": []}
    for kind, key in made.items():
        path = os.path.join(directory, f"{kind}.pem")
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(pem)
        jwks["keys"].append(public_jwk(kind, key, arguments.kid_prefix + kind))
    with open(os.path.join(directory, "jwks.json"), "w") as file:
        json.dump(jwks, file, indent=2)
        file.write("\n")
    print(f"{directory}/jwks.json: kids {', '.join(key['kid'] for key in jwks['keys'])} (private keys beside it: keep them out of git)")


def signature(directory: str, kind: str, signing_input: bytes, ecdsa: str = "raw") -> bytes:
    if kind == "none":
        return b""
    if kind == "hmac-rsa-public-pem":
        # The alg-confusion attack: the RSA public key, as the PEM a verifier may hold, used as the
        # HMAC secret.
        secret = load_key(directory, "rsa").public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        mac = hmac.HMAC(secret, hashes.SHA256())
        mac.update(signing_input)
        return mac.finalize()
    key = load_key(directory, kind)
    if kind == "rsa":
        return key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    if kind == "ec":
        der = key.sign(signing_input, ec.ECDSA(hashes.SHA256()))
        if ecdsa == "der":
            return der
        r, s = decode_dss_signature(der)
        return integer_bytes(r, 32) + integer_bytes(s, 32)
    return key.sign(signing_input)


def compact(header: bytes, payload: bytes, directory: str, kind: str, ecdsa: str = "raw") -> str:
    signing_input = f"{b64url(header)}.{b64url(payload)}".encode("ascii")
    return f"{signing_input.decode('ascii')}.{b64url(signature(directory, kind, signing_input, ecdsa))}"


def token_command(arguments) -> None:
    kind = {alg: kind for kind, alg in KINDS.items()}[arguments.alg]
    with open(os.path.join(arguments.dir, "jwks.json")) as file:
        kid = next(key["kid"] for key in json.load(file)["keys"] if key["alg"] == arguments.alg)
    now = int(time.time())
    header = json.dumps({"alg": arguments.alg, "typ": "JWT", "kid": kid}, separators=(",", ":")).encode()
    for owner in arguments.owner:
        claims = {"iss": arguments.issuer, "aud": arguments.audience, arguments.owner_claim: owner,
                  "iat": now, "exp": now + arguments.expires_in}
        if arguments.scope is not None:
            claims["scope"] = arguments.scope
        print(compact(header, json.dumps(claims, separators=(",", ":")).encode(), arguments.dir, kind))


def sign_command(_arguments) -> None:
    spec = json.load(sys.stdin)
    tokens = [compact(entry["header"].encode(), entry["payload"].encode(), entry["dir"], entry["key"], entry.get("ecdsa", "raw"))
              for entry in spec["tokens"]]
    json.dump(tokens, sys.stdout)


def certificate_authority(directory: str):
    """A certificate authority (DIR/ca.pem) and a server certificate for 127.0.0.1, ::1 and
    localhost signed by it (DIR/server.pem and DIR/server-key.pem, mode 0600)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "TodoServer dev JWKS CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
             x509.IPAddress(ipaddress.ip_address("::1"))]
    server = (x509.CertificateBuilder()
              .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
              .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
              .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=2))
              .add_extension(x509.SubjectAlternativeName(names), critical=False)
              .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
              .sign(ca_key, hashes.SHA256()))
    with open(os.path.join(directory, "ca.pem"), "wb") as file:
        file.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(os.path.join(directory, "server.pem"), "wb") as file:
        file.write(server.public_bytes(serialization.Encoding.PEM))
    descriptor = os.open(os.path.join(directory, "server-key.pem"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption()))


def serve_command(arguments) -> None:
    directory = os.path.abspath(arguments.dir)
    certificate_authority(directory)

    def read(name: str):
        try:
            with open(os.path.join(directory, name), "rb") as file:
                return file.read()
        except FileNotFoundError:
            return None

    class Provider(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            with open(os.path.join(directory, "requests.log"), "a") as log:
                log.write(f"{self.command} {self.path}\n")
            status = int((read("status") or b"200").strip())
            body = read("jwks.json") or b""
            if self.path.split("?")[0] != "/jwks.json":
                status, body = 404, b"not found"
            self.send_response(status)
            self.send_header("Content-Type", "application/jwk-set+json")
            self.send_header("Content-Length", str(len(body)))
            cache_control = read("cache-control")
            if cache_control:
                self.send_header("Cache-Control", cache_control.decode().strip())
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", arguments.port), Provider)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(directory, "server.pem"), os.path.join(directory, "server-key.pem"))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"port {server.server_address[1]}", flush=True)
    server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    keys = commands.add_parser("keys", help="make key pairs and their JWK Set in DIR")
    keys.add_argument("dir")
    keys.add_argument("--kid-prefix", default="dev-")
    keys.add_argument("--rsa-bits", type=int, default=2048)
    keys.add_argument("--force", action="store_true", help="replace keys already in DIR")
    keys.set_defaults(run=keys_command)
    token = commands.add_parser("token", help="print tokens signed by DIR's keys")
    token.add_argument("dir")
    token.add_argument("--owner", action="append", required=True, help="the owner claim's value; repeat for more tokens")
    token.add_argument("--issuer", required=True)
    token.add_argument("--audience", required=True)
    token.add_argument("--alg", choices=sorted(KINDS.values()), default="RS256")
    token.add_argument("--expires-in", type=int, default=3600, help="seconds from now (default 3600)")
    token.add_argument("--scope", help='the scope claim, e.g. "todos:read" (default: none, which reads and writes)')
    token.add_argument("--owner-claim", default="sub")
    token.set_defaults(run=token_command)
    sign = commands.add_parser("sign", help="sign the tokens of a JSON spec on standard input (tests)")
    sign.set_defaults(run=sign_command)
    serve = commands.add_parser("serve", help="serve DIR/jwks.json over HTTPS, as a provider's jwks_uri")
    serve.add_argument("dir")
    serve.add_argument("--port", type=int, default=8443)
    serve.set_defaults(run=serve_command)
    arguments = parser.parse_args()
    arguments.run(arguments)


if __name__ == "__main__":
    main()
