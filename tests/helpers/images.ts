import zlib from 'node:zlib';
import { expect } from 'vitest';
import type { Client } from './server.ts';

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid 1×1 RGB PNG of the given colour (different colours make different bytes). */
export function png(red = 255, green = 0, blue = 0): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(1, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', zlib.deflateSync(Buffer.from([0, red & 255, green & 255, blue & 255]))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Uploads an image through POST /v0/files and answers its fileId. */
export async function uploadImage(client: Client, bytes = png(), contentType = 'image/png'): Promise<string> {
  const response = await client.request('POST', '/v0/files', {
    raw: bytes,
    headers: { 'content-type': contentType },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.fileId;
}
