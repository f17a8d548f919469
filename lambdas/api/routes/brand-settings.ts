import { changeBrandSettings, showBrandSettings } from '../../brand';
import { brandSettingsResponse, exampleBrandSettings, presentBrandSettings, updateBrandSettingsBody } from '../../brand/shapes';
import { json, jsonBody } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { parseJsonBody } from '../../api-kit/validation';

export const brandSettingsRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/brand-settings',
    auth: 'api_key',
    doc: {
      operationId: 'getBrandSettings',
      summary: 'Show brand settings',
      description: 'An account that never set anything gets the defaults and `updated_at: null`.',
      tag: 'Brand settings',
      responses: { 200: json('The effective settings.', brandSettingsResponse, exampleBrandSettings) },
    },
    handle: async ({ principal }) => ({
      status: 200,
      data: presentBrandSettings(await showBrandSettings(principal.accountId)),
    }),
  }),
  defineRoute({
    // A merge, as Stripe's updates are: fields left out keep their value.
    method: 'POST',
    path: '/v1/brand-settings',
    auth: 'api_key',
    doc: {
      operationId: 'updateBrandSettings',
      summary: 'Change brand settings (merge)',
      description:
        'A field left out keeps its value; a string sets it; `null` clears it back to its default. An empty body changes nothing. One atomic write; a refused request changes nothing.',
      tag: 'Brand settings',
      body: jsonBody(updateBrandSettingsBody, { company_name: 'Acme', logo_url: 'https://cdn.acme.com/logo.svg', primary_color: '#FF0066' }),
      responses: { 200: json('The full settings, defaults filled in.', brandSettingsResponse, exampleBrandSettings) },
      errors: {
        400: [
          'primary_color must be a #rrggbb colour',
          'accent_color must be a #rrggbb colour',
          'logo_url must be an https URL',
          'logo_url must be at most 2048 characters',
          'company_name must not be empty (use null to clear it)',
          'company_name must be at most 100 characters',
          'docs_title must be a string',
          'docs_title must be at most 100 characters',
          'unknown field: theme',
        ],
      },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, updateBrandSettingsBody);
      return { status: 200, data: presentBrandSettings(await changeBrandSettings(principal.accountId, body, now)) };
    },
  }),
];
