import type { File as StoredFile } from '@tailor/client';
import { useId } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { ProblemMessage } from '../../components/problem.tsx';
import { useAction, useLoad } from '../../hooks.ts';
import { useSession } from '../../session.tsx';

/** The image types POST /v0/files takes. */
const IMAGE_TYPES: StoredFile['contentType'][] = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/svg+xml',
];

/**
 * A signed download link on this server's own origin. The API signs links on TAILOR_PUBLIC_URL, and
 * the signature covers the file, tenant, format and expiry but not the host, so the console shows
 * them from the origin it was opened at: the CSP allows images from there only (`img-src 'self'`).
 */
export function onThisOrigin(url: string): string {
  const link = new URL(url);
  return `${link.pathname}${link.search}`;
}

/** The logo of an asset, as an image; nothing while it loads or once its bytes are gone. */
export function LogoImage({ assetId, alt }: { assetId: string; alt: string }) {
  const { client } = useSession();
  const asset = useLoad(
    () => unwrap(client.GET('/v0/assets/{asset_id}', { params: { path: { asset_id: assetId } } })),
    [assetId],
  );
  const url = asset.data?.previewDownloadUrl ?? asset.data?.downloadUrl;
  if (asset.failure) return <ProblemMessage failure={asset.failure} />;
  return url ? <img class="logo" src={onThisOrigin(url)} alt={alt} /> : null;
}

interface LogoUploadProps {
  /** Names the new asset: "Brightwave logo". */
  assetName: string;
  onUploaded: (assetId: string) => void;
}

/**
 * Uploads an image as the brand's logo: its bytes to POST /v0/files, then an image asset of that
 * file (POST /v0/assets), whose id the profile keeps (docs/files-and-assets.md).
 */
export function LogoUpload({ assetName, onUploaded }: LogoUploadProps) {
  const { client } = useSession();
  const id = useId();
  const upload = useAction(async (image: File) => {
    const file = await unwrap(
      client.POST('/v0/files', {
        // The generated type names the raw bytes a (binary) string; the body is the file as it is.
        body: image as unknown as string,
        bodySerializer: (bytes) => bytes,
        // The picker offers IMAGE_TYPES only; any other type the server answers 415, shown as a problem.
        params: { header: { 'Content-Type': image.type as StoredFile['contentType'] } },
      }),
    );
    const asset = await unwrap(
      client.POST('/v0/assets', {
        body: { assetType: 'image', name: assetName, purpose: 'Brand logo', fileId: file.fileId },
      }),
    );
    onUploaded(asset.assetId);
  });
  return (
    <div class="field">
      <label for={id}>Upload a logo</label>
      <span class="hint" id={`${id}-hint`}>
        PNG, JPEG, GIF, WebP or SVG, at most 10 MiB
      </span>
      <input
        id={id}
        type="file"
        accept={IMAGE_TYPES.join(',')}
        aria-describedby={`${id}-hint`}
        disabled={upload.pending}
        onChange={(event) => {
          const image = event.currentTarget.files?.[0];
          if (image) void upload.run(image);
        }}
      />
      {upload.pending && <span class="hint">Uploading…</span>}
      <ProblemMessage failure={upload.failure} />
    </div>
  );
}
