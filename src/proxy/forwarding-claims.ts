/**
 * @module
 * Which request header names are forwarding claims: what a proxy or CDN tells the origin about the client,
 * dropped from a client that came through no trusted proxy (./headers.ts).
 */

/**
 * Headers in which a proxy tells the origin who the client is, which scheme, port, host or path it used, or
 * which server it reached — the family around X-Forwarded-For/-Proto/-Host that origins believe (Rack reads
 * X-Forwarded-Ssl/-Scheme, Spring and Symfony X-Forwarded-Port/-Prefix, nginx-style apps X-Real-IP, CDN-aware
 * ones CF-Connecting-IP or True-Client-IP; IIS X-Original-URL overrides the path). From a client that came
 * through no trusted proxy they are claims nobody checked: dropped, as `Forwarded` is. The proxy writes none
 * of them itself (the origin has its X-Forwarded-For/-Proto/-Host); through trusted proxies they pass, for the
 * origin to judge, as `Forwarded` does.
 *
 * A class, not a list (a list always misses the next proxy's spelling): {@link isForwardingClaim}. These are
 * the names it was built from, each matched by it (test/proxy-forwarding.test.ts).
 */
export const FORWARDING_CLAIMS: readonly string[] = [
  'forwarded',
  'x-forwarded-ssl',
  'x-forwarded-scheme',
  'x-forwarded-protocol',
  'x-forwarded-port',
  'x-forwarded-prefix',
  'x-forwarded-path',
  'x-forwarded-uri',
  'x-forwarded-server',
  'x-forwarded-by',
  'x-forwarded-client-ip',
  'x-forwarded-client-cert',
  'x-forwarded',
  'x-original-forwarded-for',
  'x-original-url',
  'x-original-uri',
  'x-original-host',
  'x-rewrite-url',
  'x-url-scheme',
  'front-end-https',
  'x-host',
  'x-http-host-override',
  'x-real-ip',
  'x-client-ip',
  'x-cluster-client-ip',
  'x-proxyuser-ip',
  'x-remote-ip',
  'x-remote-addr',
  'x-originating-ip',
  'client-ip',
  'true-client-ip',
  'cf-connecting-ip',
  'cf-connecting-ipv6',
  'cf-visitor',
  'fastly-client-ip',
  'fastly-ssl',
  'fly-client-ip',
  'fly-forwarded-port',
  'cloudfront-viewer-address',
  'cloudfront-forwarded-proto',
  'x-appengine-user-ip',
  'x-azure-clientip',
  'x-azure-socketip',
  'x-envoy-original-path',
  'x-envoy-external-address',
  'x-arr-ssl',
  'x-ssl-client-cert',
]

/**
 * Families a proxy or CDN owns whole: a client never has a reason to send a name under them (X-Forwarded-*,
 * Forwarded*, X-Original-*, Envoy's x-envoy-*, IIS ARR's x-arr-*, Azure Front Door's, App Engine's, Fly's,
 * CloudFront's, Cloudflare's cf-connecting-*, TLS terminators' client-certificate headers, and the
 * X-Real-/X-Remote-/X-Originating-/X-Cluster-Client-/X-ProxyUser- address headers).
 */
const CLAIM_PREFIXES = [
  'forwarded', 'x-forwarded', 'x-original-', 'x-envoy-', 'x-arr-', 'x-azure-', 'x-appengine-', 'fly-', 'cloudfront-',
  'cf-connecting-', 'x-ssl-', 'ssl-client-', 'x-client-cert', 'x-real-', 'x-remote-', 'x-originating-',
  'x-cluster-client-', 'x-proxyuser-',
]
/** Single names that claim a host, scheme or path (X-Host, X-HTTP-Host-Override, IIS X-Rewrite-URL, …). */
const CLAIM_NAMES = new Set(['x-host', 'x-http-host-override', 'x-rewrite-url', 'x-url-scheme', 'x-scheme', 'x-https', 'front-end-https', 'fastly-ssl', 'cf-visitor', 'cf-ipcountry', 'remote-addr'])
/**
 * Any name that states an address — `…-ip`, `…-ipv6`, `…-clientip`, `…-socketip`, `…-forwarded-for`
 * (True-Client-IP, Fastly-Client-IP, X-Client-IP, X-Vercel-Forwarded-For, …): what an origin would take for
 * the client's address is never the client's to say.
 */
const ADDRESS_CLAIM = /(?:^|-)(?:ip|ipv6|clientip|socketip|forwarded-for)$/

/**
 * Whether a (lower-case) request header name is a forwarding claim: dropped unless it came through trusted
 * proxies. `_` counts as `-`: CGI/WSGI/Rack origins turn both into the same variable (X_Forwarded_For is
 * their HTTP_X_FORWARDED_FOR), so an underscore spelling is the same claim.
 */
export function isForwardingClaim(name: string): boolean {
  const lower = name.includes('_') ? name.replaceAll('_', '-') : name
  if (CLAIM_NAMES.has(lower) || ADDRESS_CLAIM.test(lower)) return true
  for (const prefix of CLAIM_PREFIXES) if (lower.startsWith(prefix)) return true
  return false
}
