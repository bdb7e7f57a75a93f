import { WebError } from 'dsh-web'

/**
 * Ports a fetch never connects to unless an operator lists them in `allowedPorts`: the fetch
 * standard's "bad ports" (https://fetch.spec.whatwg.org/#port-blocking: SMTP, SSH, IRC, NFS …,
 * services that may read a GET's lines as commands of their own protocol), plus Redis (6379) and
 * memcached (11211), which do the same and are common on internal hosts.
 */
export const BAD_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139,
  143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
  // Ours, beyond the standard.
  6379, 11211,
])

/** Throws `WEB_BLOCKED_URL` when `url`'s port is a bad port that `allowedPorts` does not open. */
export function checkPort(url: URL, allowedPorts: ReadonlySet<number>): void {
  // An empty port is the scheme's default (80, 443), never a bad one.
  if (!url.port) return
  const port = Number(url.port)
  if (!BAD_PORTS.has(port) || allowedPorts.has(port)) return
  throw new WebError(
    `web fetch refused: port ${port} of "${url.hostname}" belongs to a service that is not HTTP (the fetch standard's bad ports, Redis and memcached); it is not fetched unless an operator lists ${port} in allowedPorts on web-fetch-http`,
    'WEB_BLOCKED_URL',
  )
}
