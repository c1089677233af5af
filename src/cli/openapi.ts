import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../app.ts';
import { openDatabase } from '../db/connection.ts';
import { ImagePool } from '../resources/files/image-pool.ts';
import { LocalDiskStorage } from '../resources/files/storage.ts';
import { PagesOrigin } from '../shared/pages-origin.ts';
import { Signer } from '../shared/signing.ts';

/** The server the document names: the default address of `npm start`, so that the document is the same everywhere. */
export const DOCUMENT_SERVER_URL = 'http://127.0.0.1:8080';
const DOCUMENT_PAGES_URL = 'http://127.0.0.1:8081';

/**
 * The OpenAPI document exactly as a server serves it at /v0/openapi.json, built without a running
 * server or a real database (the routes never run), for tools: the linter and the typed client.
 */
export async function openApiDocument(): Promise<unknown> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-openapi-'));
  const database = openDatabase({ databaseUrl: undefined, dataDir });
  try {
    const app = await buildApp({
      database,
      signer: new Signer('openapi-document-openapi-document-0123456'),
      storage: new LocalDiskStorage(dataDir),
      images: new ImagePool(),
      publicUrl: DOCUMENT_SERVER_URL,
      pages: new PagesOrigin(DOCUMENT_PAGES_URL),
      rateLimitRps: 0,
    });
    await app.ready();
    const document = app.swagger();
    await app.close();
    return document;
  } finally {
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
