import type { AwsDelivery } from './aws-sender';
import type { DeliveryRequest, DeliveryResult, HttpSender } from './http-sender';

/** One try, for any destination type: `aws` set, through the AWS API; else an HTTP POST to `url` (with its SSRF guard). */
type SendRequest = DeliveryRequest & { aws: AwsDelivery | null };
export type DeliverySender = (request: SendRequest) => Promise<DeliveryResult>;

/** The AWS side loads with the first AWS delivery: a deliver function with only http destinations never loads it. */
export const createDeliverySender =
  (http: HttpSender): DeliverySender =>
  async (request) =>
    request.aws ? (await import('./aws-sender')).sendToAws({ ...request.aws, ...request }) : http(request);
