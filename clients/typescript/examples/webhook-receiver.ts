/**
 * Receives Tailor's webhooks on this machine and prints each verified event: the receiver of
 * docs/getting-started.md. WEBHOOK_SECRET is the subscription's `secret` (`whsec_…`).
 *
 *   WEBHOOK_SECRET=whsec_… npx tsx clients/typescript/examples/webhook-receiver.ts
 */
import http from 'node:http';
import { verifyWebhook } from '@tailor/client';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('Set WEBHOOK_SECRET to the secret of your webhook subscription');
const port = Number(process.env.RECEIVER_PORT ?? 4000);

async function bodyOf(request: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

http
  .createServer(async (request, response) => {
    const payload = await bodyOf(request);
    try {
      const event = verifyWebhook(secret, payload, request.headers);
      console.log(`verified ${event.type} ${event.id} ${JSON.stringify(event.data)}`);
      response.writeHead(204).end();
    } catch (error) {
      // A delivery that fails verification is not Tailor's: refuse it and do nothing with it.
      console.log(`rejected a delivery: ${error instanceof Error ? error.message : error}`);
      response.writeHead(400).end();
    }
  })
  .listen(port, '127.0.0.1', () => console.log(`receiving webhooks at http://127.0.0.1:${port}/webhooks`));
