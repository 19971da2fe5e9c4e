/**
 * A self-signed certificate for pms.example.com (and its key), valid until 2126: a receiver on
 * loopback that TLS checks by that name. Made with
 * openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500
 *   -subj /CN=pms.example.com -addext subjectAltName=DNS:pms.example.com
 * Test material only: the key protects nothing.
 */
export const PMS_CERT = `-----BEGIN CERTIFICATE-----
MIIBqDCCAU2gAwIBAgIUMs2mEoUzt4zgGacrMtNc/Dvg1+YwCgYIKoZIzj0EAwIw
GjEYMBYGA1UEAwwPcG1zLmV4YW1wbGUuY29tMCAXDTI2MTEyNTE4MDU1MFoYDzIx
MjYxMTAxMTgwNTUwWjAaMRgwFgYDVQQDDA9wbXMuZXhhbXBsZS5jb20wWTATBgcq
hkjOPQIBBggqhkjOPQMBBwNCAAQ79DjJk5DZUdsR3KV2DCEZxX9bKx5B9ig7862F
XHZUBbL5hiH895oFZ6R++2khhMWA4awoLjHPumTzQVGMYUqTo28wbTAdBgNVHQ4E
FgQUXR2HqL//HIQJ1OOIOt9OgHuFqpQwHwYDVR0jBBgwFoAUXR2HqL//HIQJ1OOI
Ot9OgHuFqpQwDwYDVR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgg9wbXMuZXhhbXBs
ZS5jb20wCgYIKoZIzj0EAwIDSQAwRgIhANe9oHDKx2hTMWas1uTjrlINgnqPdNlc
qjbrIWwj1CdoAiEAv6mkjpqCb379EpZwhL3TO6DWi5d2+TDj3W4S+Zk/12g=
-----END CERTIFICATE-----
`;

export const PMS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgp5afiCvjghSiHupE
3YlTbLQNOlVng1OJdRBWTJ4uUamhRANCAAQ79DjJk5DZUdsR3KV2DCEZxX9bKx5B
9ig7862FXHZUBbL5hiH895oFZ6R++2khhMWA4awoLjHPumTzQVGMYUqT
-----END PRIVATE KEY-----
`;
