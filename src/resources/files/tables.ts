/** Row types of the files tables (see src/db/schema.ts). */
// biome-ignore lint/complexity/noBannedTypes: filled in as the resource's tables are added
export type FilesTables = {};
