import { describe, expect, it } from 'vitest';
import { deliveryLeaseSeconds } from '../../lambdas/shared/config';
import { DELIVERY_QUEUE, ENV } from '../../lambdas/shared/resource-definitions';

describe('the lease of a try in flight', () => {
  const LOCAL_SQS = { AWS_ENDPOINT_URL_SQS: 'http://127.0.0.1:4566' };
  it.each([
    { name: 'in AWS: the deliver function timeout', env: {}, seconds: DELIVERY_QUEUE.consumerTimeoutSeconds },
    { name: 'in AWS, the setting ignored: nothing stops a try at a shorter lease', env: { [ENV.deliveryLeaseSeconds]: '15' }, seconds: DELIVERY_QUEUE.consumerTimeoutSeconds },
    { name: 'in the local runtime: the timeout unless set', env: LOCAL_SQS, seconds: DELIVERY_QUEUE.consumerTimeoutSeconds },
    { name: 'in the local runtime: the setting', env: { ...LOCAL_SQS, [ENV.deliveryLeaseSeconds]: '15' }, seconds: 15 },
  ])('$name', ({ env, seconds }) => {
    expect(deliveryLeaseSeconds(env)).toBe(seconds);
  });
});
