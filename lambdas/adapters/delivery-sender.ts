import type { AwsDelivery } from './aws-sender';
import type { DeliveryRequest, DeliveryResult, HttpSender } from './http-sender';
import type { ListenDelivery } from './listen-sender';

/**
 * One try, for any destination type: `aws` set, through the AWS API; `listen` set, to a `hookgate
 * listen` connection; else an HTTP POST to `url` (with its SSRF guard).
 */
type SendRequest = DeliveryRequest & { aws: AwsDelivery | null; listen: ListenDelivery | null };
export type DeliverySender = (request: SendRequest) => Promise<DeliveryResult>;

/** The AWS and listen sides load with their first delivery: a deliver function with only http destinations loads neither. */
export const createDeliverySender =
  (http: HttpSender): DeliverySender =>
  async (request) => {
    if (request.aws) return (await import('./aws-sender')).sendToAws({ ...request.aws, ...request });
    if (request.listen) return (await import('./listen-sender')).sendToListener({ ...request.listen, ...request });
    return http(request);
  };
