import { createConnection, connectionTrustPolicy, connectionInUseMessage, findManagedConnection, NO_PRINCIPAL_MESSAGE, listManagedConnections, removeConnection, templateOf, verifyConnection } from '../../aws-connections';
import type { AwsConnectionRecord } from '../../aws-connections/record';
import {
  AWS_ACCOUNT_MESSAGE,
  AWS_SECRET_MESSAGE,
  awsConnectionCheckResponse,
  awsConnectionTemplateResponse,
  createPortalAwsConnectionBody,
  exampleAwsConnection,
  parseKeylessBody,
  portalAwsConnectionResponse,
  presentConnection,
} from '../../aws-connections/shapes';
import { notFound } from '../../domain/errors';
import type { ApiRequest } from '../http';
import { portalActor, type PortalPrincipal } from '../portal-auth';
import { publicBaseUrl } from '../public-url';
import { json, jsonBody, list, noContent } from '../route-doc';
import { settled } from '../outcomes';
import { defineRoute, type Route } from '../router';
import { parsePathId } from '../../api-kit/validation';

/**
 * The consumer portal's AWS connections: a customer creates, verifies and deletes the roles in its own
 * AWS account that its AWS endpoints deliver through, with the same use cases as the API. Every
 * connection made here is the session's customer's; another's (or the account's own) is a 404.
 */

const present = (c: AwsConnectionRecord, request: ApiRequest) => {
  const { customer: _customer, ...shown } = presentConnection(c, connectionTrustPolicy(c), `${publicBaseUrl(request)}/v1/portal/aws-connections/${c.id}/template`);
  return shown;
};

async function ownConnection(portal: PortalPrincipal, id: string | undefined): Promise<AwsConnectionRecord> {
  const connection = await findManagedConnection(portal.accountId, parsePathId(id), portalActor(portal));
  if (!connection) throw notFound();
  return connection;
}

const { customer: _customer, ...exampleShown } = exampleAwsConnection;
const examplePortalConnection = { ...exampleShown, cloudformation_template_url: `https://hooks.acme.com/v1/portal/aws-connections/${exampleAwsConnection.id}/template` };

export const portalAwsConnectionRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/portal/aws-connections',
    auth: 'portal_session',
    doc: {
      operationId: 'listPortalAwsConnections',
      summary: 'The customer’s AWS connections',
      tag: 'Portal',
      responses: { 200: list('Newest first.', portalAwsConnectionResponse, [examplePortalConnection]) },
    },
    handle: async ({ request, portal }) => ({ status: 200, data: (await listManagedConnections(portal.accountId, portalActor(portal))).map((c) => present(c, request)) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/portal/aws-connections',
    auth: 'portal_session',
    doc: {
      operationId: 'createPortalAwsConnection',
      summary: 'Connect an AWS account: a role there that Hookgate will assume',
      description:
        'No AWS credential is taken: the answer names the role, its trust policy (under a generated `external_id`) and the template that creates it. Deploy the template in `aws_account_id`, then verify.',
      tag: 'Portal',
      body: jsonBody(createPortalAwsConnectionBody, { aws_account_id: '123456789012' }),
      responses: { 201: json('The connection.', portalAwsConnectionResponse, examplePortalConnection) },
      errors: {
        400: ['aws_account_id is required', AWS_ACCOUNT_MESSAGE, AWS_SECRET_MESSAGE, 'unknown field: customer', 'customer cus_42 has reached its limit of 20 AWS connections'],
        403: [NO_PRINCIPAL_MESSAGE],
      },
    },
    handle: async ({ request, portal, now }) => {
      const body = parseKeylessBody(request, createPortalAwsConnectionBody);
      return { status: 201, data: present(await createConnection(portal.accountId, { ...body, customer: portal.customer }, now), request) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/portal/aws-connections/:id',
    auth: 'portal_session',
    doc: {
      operationId: 'getPortalAwsConnection',
      summary: 'Show one of the customer’s AWS connections',
      tag: 'Portal',
      responses: { 200: json('The connection.', portalAwsConnectionResponse, examplePortalConnection) },
    },
    handle: async ({ request, params, portal }) => ({ status: 200, data: present(await ownConnection(portal, params.id), request) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/portal/aws-connections/:id/template',
    auth: 'portal_session',
    doc: {
      operationId: 'getPortalAwsConnectionTemplate',
      summary: 'The CloudFormation template that creates the connection’s role',
      description:
        'Least privilege for the customer’s endpoints using the connection now: fetch it again and update the stack after adding or changing one. Its parameter `KmsKeyArn` (default empty) adds `kms:GenerateDataKey` and `kms:Decrypt` on that key, for targets encrypted with a customer-managed KMS key.',
      tag: 'Portal',
      responses: { 200: json('The template.', awsConnectionTemplateResponse, { AWSTemplateFormatVersion: '2010-09-09' }) },
    },
    handle: async ({ params, portal }) => ({ status: 200, data: await templateOf(await ownConnection(portal, params.id)) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/portal/aws-connections/:id/verify',
    auth: 'portal_session',
    doc: {
      operationId: 'verifyPortalAwsConnection',
      summary: 'Assume the connection’s role now, and keep the result',
      tag: 'Portal',
      responses: { 200: json('The result.', awsConnectionCheckResponse, { status: 'verified', error: null, checked_at: exampleAwsConnection.created_at }) },
    },
    handle: async ({ params, portal, now }) => ({ status: 200, data: await verifyConnection(await ownConnection(portal, params.id), now) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/portal/aws-connections/:id',
    auth: 'portal_session',
    doc: {
      operationId: 'deletePortalAwsConnection',
      summary: 'Delete an AWS connection',
      description: 'Refused while an endpoint uses it. The role stays in the AWS account until its stack is deleted.',
      tag: 'Portal',
      responses: { 204: noContent('Deleted.') },
      errors: { 400: [connectionInUseMessage([exampleAwsConnection.id])] },
    },
    handle: async ({ params, portal }) => {
      settled(await removeConnection(await ownConnection(portal, params.id)));
      return { status: 204 };
    },
  }),
];
