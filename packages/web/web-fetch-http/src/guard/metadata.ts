/**
 * Cloud instance-metadata and host-agent endpoints: refused whatever the policy opens, in every
 * spelling (IPv4-mapped, or carried by NAT64, 6to4, Teredo …). Some sit in public ranges (Azure's
 * WireServer), so the default policy alone would let them through. docs/web.md prints this table.
 */
export const METADATA_ENDPOINTS: readonly { readonly address: string; readonly what: string }[] = [
  { address: '169.254.169.254', what: 'AWS, Azure IMDS, GCP, OCI, OpenStack, DigitalOcean, Hetzner, Huawei … instance metadata' },
  { address: '169.254.170.2', what: 'AWS ECS task credentials' },
  { address: '169.254.170.23', what: 'AWS EKS Pod Identity' },
  { address: '169.254.0.23', what: 'Tencent Cloud metadata' },
  { address: '168.63.129.16', what: 'Azure WireServer (a public-range address)' },
  { address: '100.100.100.200', what: 'Alibaba Cloud metadata' },
  { address: '100.96.0.96', what: 'Volcengine metadata' },
  { address: '192.0.0.192', what: 'Oracle Cloud (OCI) metadata' },
  { address: 'fd00:ec2::254', what: 'AWS instance metadata over IPv6' },
  { address: 'fd00:ec2::23', what: 'AWS EKS Pod Identity over IPv6' },
]

/** Names that reach instance metadata; refused before any DNS query, whatever the policy opens. */
export const METADATA_NAMES: readonly string[] = [
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.tencentyun.com',
  'instance-data',
  'instance-data.ec2.internal',
]
