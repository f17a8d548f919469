/**
 * How a custom domain is deleted. Without a certificate nothing of it exists in AWS, so its items can
 * simply go (always the case locally, where nothing requests certificates). With one, the certificate,
 * and perhaps an API Gateway domain name and mapping, exist: the domain provisioner, which alone holds
 * ACM and API Gateway rights, removes them first, and the hostname stays held until it has, so a new
 * registration of it cannot meet the old domain name in API Gateway.
 */
export type DomainRemoval = 'delete_now' | 'tear_down';

export const domainRemoval = (domain: { certificate_arn: string | null }): DomainRemoval =>
  domain.certificate_arn === null ? 'delete_now' : 'tear_down';
