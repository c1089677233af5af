import { type Static, Type } from 'typebox';
import { HttpUrl, IdParams, Nullable, PagedList, PageQuery, Timestamp } from '../../http/schemas.ts';

const COLOR_SHAPE = 'A colour such as #3730a3: "#" and six hexadecimal digits (0-9, a-f)';
const Color = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: COLOR_SHAPE, examples: ['#3730a3'] });

export const BrandInput = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Shown in the header and footer of its pages',
    }),
    website: Type.Optional(HttpUrl),
    logoAssetId: Type.Optional(
      Type.String({ description: 'An active image asset of your tenant, shown in the header' }),
    ),
    colors: Type.Optional(
      Type.Object(
        {
          primary: Type.Optional({ ...Color, description: `${COLOR_SHAPE}. Buttons and links` }),
          accent: Type.Optional({ ...Color, description: `${COLOR_SHAPE}. Highlights` }),
        },
        { additionalProperties: false },
      ),
    ),
    voice: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'Tone, and words to use or avoid: generation follows it ("Avoid: synergy, leverage")',
      }),
    ),
    footerText: Type.Optional(
      Type.String({ maxLength: 500, description: "Shown in the footer of the brand's pages" }),
    ),
  },
  {
    title: 'BrandInput',
    examples: [
      {
        name: 'Acme Retail Cloud',
        website: 'https://acme.example',
        colors: { primary: '#1f4ed8', accent: '#f59e0b' },
        voice:
          'Plain and warm; short sentences; speak to store operators. Avoid: synergy, leverage, revolutionize.',
        footerText: '© 2026 Acme Retail Cloud, Inc. All rights reserved.',
      },
    ],
    additionalProperties: false,
  },
);
export type BrandInput = Static<typeof BrandInput>;

export const Brand = Type.Object(
  {
    brandId: Type.String(),
    name: Type.String(),
    website: Nullable(Type.String()),
    logoAssetId: Nullable(Type.String()),
    colors: Type.Object({ primary: Nullable(Type.String()), accent: Nullable(Type.String()) }),
    voice: Nullable(Type.String()),
    footerText: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Brand' },
);
export type Brand = Static<typeof Brand>;

export const BrandDeleted = Type.Object(
  { brandId: Type.String(), deleted: Type.Literal(true) },
  { title: 'BrandDeleted' },
);

export const BrandList = PagedList(Brand, { title: 'BrandList' });
export const BrandListQuery = Type.Object({ ...PageQuery });
export const BrandParams = IdParams('brand_id');
