import { describe, expect, it } from 'vitest';
import { domainRemoval, type DomainRemoval } from '../../lambdas/custom-domains/removal';

describe('how a custom domain is deleted', () => {
  it.each<[string, string | null, DomainRemoval]>([
    ['never verified, or verified locally (no certificate): its items go at once', null, 'delete_now'],
    ['with a certificate (pending, issued or failed TLS): the provisioner tears it down first', 'arn:aws:acm:us-east-1:1:certificate/x', 'tear_down'],
  ])('%s', (_, certificateArn, expected) => {
    expect(domainRemoval({ certificate_arn: certificateArn })).toBe(expected);
  });
});
