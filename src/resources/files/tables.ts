/** Row types of the files tables. */
export interface FilesTable {
  id: string;
  tenant_id: string;
  /** One of the accepted image media types, without parameters. */
  content_type: string;
  size: number;
  /** Lowercase hex SHA-256 of the bytes. */
  sha256: string;
  /** 1 once a WebP preview is stored beside the bytes; 0 until then, or when none could be made. */
  has_preview: number;
  created_at: number;
  /** When the file was given up: its URLs stop and its bytes are removed. */
  deleted_at: number | null;
  /** When its bytes were actually removed from storage; null while that is still to do. */
  bytes_removed_at: number | null;
}

export interface FilesTables {
  files: FilesTable;
}
