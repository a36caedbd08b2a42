// Builds the API client from the settings: base URL and key (env or key file), stopped by SIGINT/SIGTERM.
import { createApiClient, type ApiClient } from '../api/index.js';
import { syncApiFrom } from '../sync/api-port.js';
import type { SyncApi } from '../sync/run.js';
import type { CommandContext } from './context.js';
import { readApiKey, requireBaseUrl } from './settings.js';

export function createClient(ctx: CommandContext): ApiClient {
  const { apiKeyFile } = ctx.settings;
  const keySource = apiKeyFile === undefined ? 'GEX_API_KEY' : `the key file ${apiKeyFile} (--api-key-file)`;
  return createApiClient({
    baseUrl: requireBaseUrl(ctx.settings),
    apiKey: readApiKey(ctx.settings, process.env, (message) => ctx.out.warn(message)),
    signal: ctx.signal,
    userAgent: 'gexwh/0.1',
    keySource,
    callBudgetMs: ctx.settings.apiTimeoutSeconds * 1000,
  });
}

export function connectApi(ctx: CommandContext): { client: ApiClient; api: SyncApi; close: () => Promise<void> } {
  const client = createClient(ctx);
  return { client, api: syncApiFrom(client), close: () => client.close() };
}
