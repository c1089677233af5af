import type { PageMetadata } from '../../http/page-metadata.ts';
import type { ActionCardWidget, FooterLinkGroup } from '../../resources/pages/schema.ts';
import type { Arm } from '../../shared/arm.ts';
import { type Html, html, type Part, raw } from '../../shared/html.ts';
import { renderMarkdown } from '../../shared/markdown-html.ts';
import { isSafeLink } from '../../shared/safe-url.ts';
import type { ImageRefs, ImageUrls } from './images.ts';
import type { PageShown } from './service.ts';
import { PAGE_STYLES } from './styles.ts';

/** Everything a page is rendered from. */
export interface PageModel {
  view: PageShown;
  images: ImageUrls;
  /**
   * A visitor's page: the signed token the tracker and the form report with, where the tracking
   * script is loaded from, and the arm the visitor is served. Without it the page is a preview: no
   * tracking, no scripts of the tenant's, a form that sends nothing, and not for search engines.
   */
  visit?: Visit;
}

interface Visit {
  token: string;
  trackerSrc: string;
  arm: Arm;
}

interface ShownAction {
  actionId: string;
  title: string;
  href: string;
}

const FORM_ANCHOR = '#tailor-form';
const FORM_ACTION_TYPE = 'form';
const DEFAULT_INSTRUCTIONS = 'Tell us a little about yourself and we will get back to you shortly.';
const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
/** The most luminance an accent may have and still carry white button text legibly (contrast 3:1). */
const MAX_ACCENT_LUMINANCE = 0.3;

/**
 * The page's metadata: the version's generated metadata (its title and description) under the
 * audience's effective metadata, so that what the tenant set wins and edits made since the version
 * was generated show at once.
 */
export function pageMetadata(view: PageShown): PageMetadata {
  const metadata = { ...view.content.metadata, ...view.audience.effectiveMetadata };
  // A page written for one named person is not for search engines unless the tenant says otherwise.
  if (!metadata.robots && view.audience.personId) metadata.robots = ['noindex', 'nofollow'];
  return metadata;
}

/** Every file and asset the page shows, to be resolved together. */
export function imageRefsOf(view: PageShown): ImageRefs {
  const metadata = pageMetadata(view);
  const logos = view.page.actionCardWidgets.flatMap((widget) => widget.logos.map((logo) => logo.image));
  return {
    fileIds: [
      metadata.ogImageFileId,
      metadata.twitterImageFileId,
      ...logos.map((image) => image.fileId),
    ].filter((id): id is string => Boolean(id)),
    assetIds: [view.brand?.logoAssetId, ...logos.map((image) => image.assetId)].filter((id): id is string =>
      Boolean(id),
    ),
  };
}

/**
 * A URL the page may link to, or undefined. URLs are checked on input, but generated content is
 * not, so every URL is checked again here: nothing but http(s), mailto:, tel:, paths and fragments.
 */
function linkTarget(url: string | undefined): string | undefined {
  return url !== undefined && isSafeLink(url) ? url : undefined;
}

function luminance(hex: string): number {
  const digits =
    hex.length === 4
      ? [...hex.slice(1)].map((digit) => digit + digit)
      : [1, 3, 5].map((at) => hex.slice(at, at + 2));
  const [r = 0, g = 0, b = 0] = digits.map((pair) => {
    const channel = Number.parseInt(pair, 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** A colour dark enough to carry white text, or undefined. */
function darkEnough(color: string | null | undefined): string | undefined {
  return color && HEX_COLOR.test(color) && luminance(color) <= MAX_ACCENT_LUMINANCE ? color : undefined;
}

/**
 * The page's colours: the brand's primary colour for buttons and links (else the theme colour),
 * when dark enough for white text, and its accent colour for the hero's glow.
 */
function colorStyle(view: PageShown, themeColor: string | undefined): string | undefined {
  const accent = darkEnough(view.brand?.colors.primary) ?? darkEnough(themeColor);
  const glow =
    view.brand?.colors.accent && HEX_COLOR.test(view.brand.colors.accent)
      ? view.brand.colors.accent
      : undefined;
  const style = [accent ? `--accent:${accent}` : '', glow ? `--glow:${glow}` : ''].filter(Boolean).join(';');
  return style || undefined;
}

function shownAction(
  view: PageShown,
  action: { actionId: string; buttonTitle: string; url: string },
): ShownAction {
  const type = view.page.actions.find((pageAction) => pageAction.actionId === action.actionId)?.actionType;
  const url = linkTarget(view.audience.actionUrlOverride ?? action.url);
  return {
    actionId: action.actionId,
    title: action.buttonTitle,
    href: type === FORM_ACTION_TYPE || !url ? FORM_ANCHOR : url,
  };
}

/** The header's action: the version's text for it, else the page's (added after the version was made). */
function headerAction(view: PageShown): ShownAction | undefined {
  const id = view.page.headerActionId;
  if (!id) return undefined;
  const action =
    view.content.actions.find((candidate) => candidate.actionId === id) ??
    view.page.actions.find((candidate) => candidate.actionId === id);
  return action ? shownAction(view, action) : undefined;
}

function button(action: ShownAction, kind: 'primary' | 'secondary' | 'small'): Html {
  const classes = kind === 'small' ? 'button button--primary button--small' : `button button--${kind}`;
  return html`<a class="${classes}" href="${action.href}" data-action-id="${action.actionId}">${action.title}</a>`;
}

function imageUrl(
  images: ImageUrls,
  fileId: string | undefined,
  url: string | undefined,
): string | undefined {
  return (fileId ? images.files.get(fileId) : undefined) ?? linkTarget(url);
}

function metaTags(metadata: PageMetadata, images: ImageUrls, title: string): Part[] {
  const named = (name: string, content: string | undefined) =>
    content ? html`<meta name="${name}" content="${content}">` : undefined;
  const property = (name: string, content: string | undefined) =>
    content ? html`<meta property="${name}" content="${content}">` : undefined;
  const ogImage = imageUrl(images, metadata.ogImageFileId, metadata.ogImageUrl);
  const twitterImage = imageUrl(images, metadata.twitterImageFileId, metadata.twitterImageUrl) ?? ogImage;
  const canonical = linkTarget(metadata.canonicalUrl);
  return [
    named('description', metadata.description),
    named('keywords', metadata.keywords?.join(', ')),
    named('author', metadata.author),
    named('robots', metadata.robots?.join(', ')),
    canonical ? html`<link rel="canonical" href="${canonical}">` : undefined,
    property('og:type', 'website'),
    property('og:title', metadata.ogTitle || title),
    property('og:description', metadata.ogDescription || metadata.description),
    property('og:image', ogImage),
    property('og:image:alt', ogImage ? metadata.ogImageAlt : undefined),
    property('og:site_name', metadata.ogSiteName),
    property('og:url', linkTarget(metadata.ogUrl) ?? canonical),
    named('twitter:card', twitterImage ? 'summary_large_image' : 'summary'),
    named('twitter:title', metadata.twitterTitle || metadata.ogTitle || title),
    named(
      'twitter:description',
      metadata.twitterDescription || metadata.ogDescription || metadata.description,
    ),
    named('twitter:image', twitterImage),
    named('twitter:image:alt', twitterImage ? metadata.twitterImageAlt || metadata.ogImageAlt : undefined),
    named('twitter:site', metadata.twitterSite),
    named('twitter:creator', metadata.twitterCreator),
    named('theme-color', metadata.themeColor),
  ].map((tag) => (tag ? html`\n${tag}` : undefined));
}

/** Blank lines separate paragraphs; single line breaks are kept. */
function paragraphs(text: string): Html[] {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map(
      (paragraph) =>
        html`<p>${paragraph.split('\n').map((line, index) => [index > 0 ? html`<br>` : '', line])}</p>`,
    );
}

/** Copy in the safe markdown subset, as every preview shows it; a link that is not a safe URL shows as its text. */
function copy(markdown: string): Html {
  return raw(renderMarkdown(markdown).html);
}

function sections(view: PageShown): Html | undefined {
  const cards = view.content.sections
    .map((section) => ({ heading: section.heading.trim(), body: copy(section.body) }))
    .filter((section) => section.heading || section.body.text)
    .map(
      (section) =>
        html`<article class="card">${section.heading ? html`<h2>${section.heading}</h2>` : ''}${section.body}</article>`,
    );
  return cards.length > 0
    ? html`<section class="band"><div class="wrap grid">${cards}</div></section>`
    : undefined;
}

function logo(images: ImageUrls, image: ActionCardWidget['logos'][number]['image']): Html | undefined {
  const src = image.url
    ? linkTarget(image.url)
    : image.fileId
      ? images.files.get(image.fileId)
      : images.assets.get(image.assetId);
  if (src) return html`<li><img src="${src}" alt="${image.altText}" loading="lazy" decoding="async"></li>`;
  // An image that cannot be shown (deleted since) still names the company.
  return image.altText ? html`<li class="logo-name">${image.altText}</li>` : undefined;
}

/**
 * The page's widgets: a strip of logos, or a card that leads to the page's first action. A widget
 * with neither logos to show nor a title is left out.
 */
function widgets(view: PageShown, images: ImageUrls, actions: ShownAction[]): Html | undefined {
  const cards = view.page.actionCardWidgets.flatMap((widget) => {
    const logos = widget.logos.map((entry) => logo(images, entry.image)).filter((item) => item !== undefined);
    const kind = widget.type.toLowerCase().replace(/[^a-z0-9-]/g, '');
    const title = widget.title.trim();
    if (logos.length > 0) {
      return [
        html`<article class="card widget widget--${kind}">${title ? html`<h2>${title}</h2>` : ''}<ul class="logos">${logos}</ul></article>`,
      ];
    }
    const [action] = actions;
    if (!title || !action) return [];
    return [
      html`<article class="card widget widget--action widget--${kind}"><p class="widget-title">${title}</p>${button(action, 'primary')}</article>`,
    ];
  });
  return cards.length > 0
    ? html`<section class="band"><div class="wrap grid">${cards}</div></section>`
    : undefined;
}

function actionForm(view: PageShown, actions: ShownAction[], live: boolean): Html {
  const heading = actions.find((action) => action.href === FORM_ANCHOR)?.title ?? 'Get in touch';
  const instructions = view.audience.actionFormInstructionsOverride || DEFAULT_INSTRUCTIONS;
  return html`<section class="band band--last"><div class="wrap">
<div class="card form-card" id="tailor-form">
<h2>${heading}</h2>
${paragraphs(instructions)}
<form${live ? html` data-tailor-form` : ''}>
<div class="form-grid">
<label class="field">Name<input name="name" autocomplete="name" maxlength="255"></label>
<label class="field">Work email<input name="email" type="email" autocomplete="email" maxlength="320" required></label>
<label class="field field--wide">Company<input name="company" autocomplete="organization" maxlength="255"></label>
<label class="field field--wide">Message<textarea name="message" rows="5" maxlength="5000"></textarea></label>
<div class="form-footer"><button class="button button--primary" type="submit"${live ? '' : html` disabled`}>Send</button><p class="form-error" role="alert" data-tailor-form-error hidden>Sorry, that did not go through. Please try again.</p></div>
</div>
</form>
<div class="form-thanks" role="status" tabindex="-1" data-tailor-form-thanks hidden><h3>Thank you!</h3><p>We received your message and will be in touch soon.</p></div>
</div>
</div></section>`;
}

function footerLinks(groups: FooterLinkGroup[]): Html[] {
  return groups.map((group) => {
    const links = group.links.map((link) => {
      const href = linkTarget(link.url);
      return html`<li>${href ? html`<a href="${href}">${link.text}</a>` : link.text}</li>`;
    });
    return html`<div>${group.title ? html`<h2>${group.title}</h2>` : ''}<ul>${links}</ul></div>`;
  });
}

/** The footer: the page's links, the brand's footer text, and the brand's name; no name without a profile. */
function footer(view: PageShown): Html {
  const groups = footerLinks(view.page.footerLinks ?? []);
  const { brand } = view;
  return html`<footer class="site-footer"><div class="wrap">
${groups.length > 0 ? html`<nav class="footer-groups" aria-label="Footer">${groups}</nav>` : ''}
${brand?.footerText ? html`<p class="footer-text">${brand.footerText}</p>` : ''}
${brand ? html`<p class="legal">© ${new Date().getFullYear()} ${brand.name}</p>` : ''}
</div></footer>`;
}

/**
 * The header's name: the brand's (with its logo when it has one), else the site name or title the
 * tenant gave the page. Never the page's internal name, nor a generated title, which would repeat
 * the headline: without any of these the header holds only its action.
 */
function masthead(view: PageShown, images: ImageUrls): Html {
  const own = view.audience.effectiveMetadata;
  const name = view.brand?.name ?? (own?.ogSiteName || own?.title);
  const logoUrl = view.brand?.logoAssetId ? images.assets.get(view.brand.logoAssetId) : undefined;
  const website = linkTarget(view.brand?.website ?? undefined);
  if (!name && !logoUrl) return html``;
  const mark = html`${logoUrl ? html`<img class="brand-logo" src="${logoUrl}" alt="">` : ''}${name ? html`<span>${name}</span>` : ''}`;
  return website
    ? html`<a class="brand" href="${website}">${mark}</a>`
    : html`<span class="brand">${mark}</span>`;
}

/**
 * `icon` is the brand's logo; without one the page says it has no icon (`data:,`), so that no
 * browser asks the pages origin for a /favicon.ico that no tenant put there.
 */
function htmlDocument(
  head: { title: string; tags: Part[]; style?: string; icon?: string },
  body: Part,
): string {
  return html`<!doctype html>
<html lang="en"${head.style ? html` style="${head.style}"` : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="${head.icon ?? 'data:,'}">
<title>${head.title}</title>${head.tags}
<style>${raw(PAGE_STYLES)}</style>
</head>
${body}
</html>
`.text;
}

/**
 * What the tracker keeps a tab's session under: the audience, and the arm when it is the baseline,
 * so that a visitor moved from one arm to the other starts a new session there.
 */
function trackerScope(view: PageShown, visit: Visit): string {
  return visit.arm === 'baseline' ? `${view.audience.audienceId}:baseline` : view.audience.audienceId;
}

/**
 * A page: a version of the audience's page with the page's widgets, form and footer, in its brand;
 * a visitor's page also carries the tracker and the tenant's scripts.
 */
export function renderPage({ view, images, visit }: PageModel): string {
  const metadata = pageMetadata(view);
  if (!visit) metadata.robots = ['noindex', 'nofollow'];
  const title = metadata.title || view.content.headline || view.page.title;
  const actions = view.content.actions.map((action) => shownAction(view, action));
  const header = headerAction(view);
  const scripts = visit
    ? view.page.scripts.filter((script) => script.enabled).map((script) => raw(`\n${script.content}`))
    : [];
  const tracker = visit
    ? html`<script src="${visit.trackerSrc}" data-tailor-token="${visit.token}" data-tailor-scope="${trackerScope(view, visit)}" data-tailor-arm="${visit.arm}" defer></script>`
    : '';
  const body = html`<body>
${visit ? '' : html`<p class="preview-note">Preview: visitors are not counted and the form sends nothing.</p>`}
<header class="site-header"><div class="wrap">${masthead(view, images)}${header ? button(header, 'small') : ''}</div></header>
<main>
<section class="hero"><div class="wrap">
<h1>${view.content.headline}</h1>
${view.content.subheadline ? html`<p class="lead">${view.content.subheadline}</p>` : ''}
${actions.length > 0 ? html`<div class="actions">${actions.map((action, index) => button(action, index === 0 ? 'primary' : 'secondary'))}</div>` : ''}
</div></section>
${widgets(view, images, actions)}
${sections(view)}
${actionForm(view, actions, visit !== undefined)}
</main>
${footer(view)}
${tracker}${scripts}
</body>`;
  return htmlDocument(
    {
      title,
      tags: metaTags(metadata, images, title),
      style: colorStyle(view, metadata.themeColor),
      icon: view.brand?.logoAssetId ? images.assets.get(view.brand.logoAssetId) : undefined,
    },
    body,
  );
}

/** The one answer for every address that shows nothing: it does not tell why. */
export function renderNotFound(): string {
  const body = html`<body>
<main class="not-found"><div class="card">
<p class="code">404</p>
<h2>Page not found</h2>
<p>This page does not exist or is no longer available. Please check the link you followed.</p>
</div></main>
</body>`;
  return htmlDocument(
    { title: 'Page not found', tags: [html`\n<meta name="robots" content="noindex">`] },
    body,
  );
}
