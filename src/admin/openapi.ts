/**
 * @module
 * `GET /openapi.json`: an OpenAPI 3.1 document of the admin API, generated from the zod schemas its routes
 * validate with (zod 4's `z.toJSONSchema`, whose draft 2020-12 output is OpenAPI 3.1's schema dialect), so
 * the document and the validation cannot drift apart. Rules zod checks in code (an event's end after its
 * start, a template that parses) cannot be written in JSON Schema; their descriptions say so.
 */
import type { Hono } from 'hono'
import { z } from 'zod'
import { eventSchema } from '../admission/events.ts'
import { settingsPatchSchema } from '../admission/settings.ts'
import { analyticsQuerySchema } from './analytics.ts'
import { previewSchema } from './preview.ts'
import { ruleSchema } from '../rules/language.ts'

type Schema = Record<string, unknown>

/** A zod schema as the request side sees it (transforms' input, not output); `$schema` dropped (OpenAPI sets the dialect). */
export function jsonSchemaOf(schema: z.ZodType): Schema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Schema
  return rest
}

/** Query parameters from an object schema: one parameter per property, all optional unless required. */
function queryParameters(schema: z.ZodType): Schema[] {
  const json = jsonSchemaOf(schema) as { properties?: Record<string, Schema>; required?: string[] }
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema: property,
  }))
}

const json = (schema: Schema, description: string) => ({ description, content: { 'application/json': { schema } } })
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const error = json(ref('Error'), 'an error: `{ error, message }`, or `{ error: "invalid", issues }` for a 400')
const errors = { '400': error, '401': error, '403': error, '503': error }
const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' } }
const anyObject = (description: string) => json({ type: 'object' }, description)

function operation(summary: string, extra: Schema = {}): Schema {
  return { summary, responses: { '200': anyObject('the result'), ...errors }, ...extra }
}

/** The document; built once per admin app. */
export function openApiDocument(): Schema {
  const body = (name: string) => ({ required: true, content: { 'application/json': { schema: ref(name) } } })
  return {
    openapi: '3.1.0',
    info: { title: 'hono-waiting-room admin API', version: '1', description: 'Watch and steer a running waiting room. Every route but the dashboard needs the bearer token.' },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    security: [{ bearer: [] }],
    paths: {
      '/': { get: { summary: 'the dashboard (HTML; signs in with the token itself)', security: [], responses: { '200': { description: 'the page', content: { 'text/html': {} } } } } },
      '/status': { get: operation('the room now: status, estimated users, longest estimated wait, per location') },
      '/settings': {
        get: operation('the settings in force, the runtime overrides and the event in force'),
        patch: operation('change runtime overrides (null clears one); reaches every worker within one refresh', { requestBody: body('SettingsPatch') }),
      },
      '/events': {
        get: operation('the scheduled events'),
        post: {
          ...operation('schedule an event', { requestBody: body('NewEvent') }),
          responses: { '201': anyObject('the event as stored'), '409': error, ...errors },
        },
      },
      '/events/{id}': { delete: { ...operation('delete an event', { parameters: [idParameter] }), responses: { '200': anyObject('the deleted event'), '404': error, ...errors } } },
      '/events/{id}/report': { get: { ...operation("an event's report: peak queue, max wait, admitted, time to drain", { parameters: [idParameter] }), responses: { '200': anyObject('the report'), '404': error, '501': error, ...errors } } },
      '/events/{id}/preview': { get: { ...operation("the settings an event would put in force, and the fields it inherits", { parameters: [idParameter] }), responses: { '200': anyObject('the preview'), '404': error, ...errors } } },
      '/rules': {
        get: operation("the runtime bypass rules, with this worker's hits"),
        post: { ...operation('add a runtime bypass rule; every worker applies it within one refresh', { requestBody: body('Rule') }), responses: { '201': anyObject('the rule as stored'), '409': error, ...errors } },
      },
      '/rules/{id}': { delete: { ...operation('delete a rule', { parameters: [idParameter] }), responses: { '200': anyObject('the deleted rule'), '404': error, ...errors } } },
      '/analytics': {
        get: {
          ...operation('per-minute history: JSON, or CSV with Accept: text/csv', { parameters: queryParameters(analyticsQuerySchema) }),
          responses: { '200': { description: 'the series', content: { 'application/json': { schema: { type: 'object' } }, 'text/csv': {} } }, '501': error, ...errors },
        },
      },
      '/metrics': { get: { summary: 'Prometheus metrics', responses: { '200': { description: 'text exposition format', content: { 'text/plain': {} } }, '401': error } } },
      '/preview': {
        get: { ...operation('the queue page with chosen variables (HTML, or JSON with Accept: application/json)', { parameters: queryParameters(previewSchema) }) },
        post: operation('the queue page with chosen variables or a template under trial', { requestBody: body('Preview') }),
      },
      '/openapi.json': { get: operation('this document') },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        SettingsPatch: jsonSchemaOf(settingsPatchSchema),
        NewEvent: {
          ...jsonSchemaOf(eventSchema),
          description:
            'Also checked: eventEndTime after eventStartTime (by one minute at least), prequeueStartTime at least 5 minutes before eventStartTime, totalActiveUsers and newUsersPerMinute set together, shuffleAtEventStart only with a prequeueStartTime, at most 100 events, a template that parses as Mustache.',
        },
        Rule: jsonSchemaOf(ruleSchema),
        Preview: { ...jsonSchemaOf(previewSchema), description: 'Also checked: a language with built-in texts, a template that parses.' },
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: { type: 'string' },
            message: { type: 'string' },
            issues: { type: 'array', items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } } },
          },
        },
      },
    },
  }
}

/** `GET /openapi.json` on the admin app (behind its token, like every data route). */
export function openApiRoute(admin: Hono): void {
  let document: Schema | undefined
  admin.get('/openapi.json', (c) => c.json((document ??= openApiDocument())))
}
