import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import compress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../shared/errors.ts';
import { sendProblem } from './errors.ts';

/** What `npm run build:console` (run by `npm install`) leaves: index.html and hashed assets. */
const BUILT = fileURLToPath(new URL('../../console/dist/', import.meta.url));
/** index.html holds this where each answer puts its own style nonce (console/README.md). */
const NONCE_PLACEHOLDER = '%STYLE_NONCE%';
const ONE_YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/**
 * No inline script, no origin but this one. Styles are the bundle's stylesheet plus those carrying
 * this answer's nonce: the console gives it to the <style> of a version preview, shown in a
 * sandboxed srcdoc frame, which inherits this policy (docs/console.md).
 */
function contentSecurityPolicy(styleNonce?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self'${styleNonce ? ` 'nonce-${styleNonce}'` : ''}`,
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "frame-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Beside the policy: no sniffing, no referrer, and a browsing context group of the console's own
 * (`Cross-Origin-Opener-Policy`): a console that another site opened in a popup is cut off from its
 * opener, which cannot navigate it (to a fake "session expired" page) nor reach it, and is not
 * reachable from it (docs/security.md, tab-nabbing).
 */
function secureHeaders(reply: FastifyReply, styleNonce?: string): void {
  reply
    .header('Content-Security-Policy', contentSecurityPolicy(styleNonce))
    .header('Cross-Origin-Opener-Policy', 'same-origin')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer');
}

async function indexHtml(dist: string): Promise<string> {
  try {
    return await fs.readFile(`${dist}index.html`, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new AppError(
      'unavailable',
      'The console is not built: run `npm install` (or `npm run build:console`)',
    );
  }
}

/**
 * The console, registered at the prefix /console: hashed assets cached for a year, and index.html, never cached, for
 * /console and every path under it (the app routes on the client). Hidden from the OpenAPI document:
 * the console is a client of the API, not part of it.
 */
export async function consoleRoutes(
  app: FastifyInstance,
  { dist = BUILT }: { /** The build's folder, with a trailing slash. */ dist?: string } = {},
): Promise<void> {
  await app.register(compress, { encodings: ['gzip'], globalDecompression: false });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('Content-Security-Policy')) secureHeaders(reply);
    return payload;
  });
  // A missing asset is a 404 (the app's handler would find the wildcard route and say 405).
  app.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, new AppError('not_found', `No console file at ${request.url}`)),
  );
  await app.register(fastifyStatic, {
    root: `${dist}assets`,
    prefix: '/assets/',
    maxAge: ONE_YEAR_MS,
    immutable: true,
    index: false,
  });
  const serveIndex = async (_request: unknown, reply: FastifyReply) => {
    const styleNonce = randomBytes(16).toString('base64');
    const html = (await indexHtml(dist)).replace(NONCE_PLACEHOLDER, styleNonce);
    secureHeaders(reply, styleNonce);
    return reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-cache').send(html);
  };
  app.get('', { schema: { hide: true } }, serveIndex);
  app.get('/*', { schema: { hide: true } }, serveIndex);
}

/** The API origin's root is where a person who typed its address lands: the console. */
export async function rootRedirect(app: FastifyInstance): Promise<void> {
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/console', 302));
}
