import type { File as StoredFile } from '@tailor/client';
import { unwrap } from '../../api.ts';
import { FileField } from '../../components/forms.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useAction, useLoad } from '../../hooks.ts';
import { useSession } from '../../session.tsx';

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
 * file (POST /v0/assets), whose id the profile keeps (docs/files-and-assets.md). The file's type and
 * size are checked against what the upload takes before anything is sent.
 */
export function LogoUpload({ assetName, onUploaded }: LogoUploadProps) {
  const { client } = useSession();
  const upload = useAction(async (image: File) => {
    const file = await unwrap(
      client.POST('/v0/files', {
        // The generated type names the raw bytes a (binary) string; the body is the file as it is.
        body: image as unknown as string,
        bodySerializer: (bytes) => bytes,
        // FileField passes only a file of a type the upload takes.
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
    <FileField
      label="Upload a logo"
      operation="uploadFile"
      pending={upload.pending}
      failure={upload.failure}
      done={upload.done && 'Uploaded: save the brand to keep it.'}
      onFile={(image) => void upload.run(image)}
    />
  );
}
