import { sendToAws, type AwsDelivery } from './aws-sender';
import type { DeliveryRequest, DeliveryResult, HttpSender } from './http-sender';

/** One try, for any destination type: `aws` set, through the AWS API; else an HTTP POST to `url` (with its SSRF guard). */
type SendRequest = DeliveryRequest & { aws: AwsDelivery | null };
export type DeliverySender = (request: SendRequest) => Promise<DeliveryResult>;

export const createDeliverySender =
  (http: HttpSender): DeliverySender =>
  (request) =>
    request.aws ? sendToAws({ ...request.aws, ...request }) : http(request);
