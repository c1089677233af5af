/**
 * The style sheet of public pages, inlined so that a page is one request and renders at once.
 * `--accent` is the brand's primary colour (else the theme colour) when it is dark enough to carry
 * white text; `--glow` tints the hero, the brand's accent colour when it has one.
 */
export const PAGE_STYLES = `
:root{--accent:#4f46e5;--glow:var(--accent);--ink:#0f172a;--muted:#475569;--line:#e2e8f0;--bg:#f8fafc;--card:#fff;color-scheme:light}
*{box-sizing:border-box}
html{scroll-behavior:smooth;-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.65 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg);-webkit-font-smoothing:antialiased}
img{max-width:100%}
a{color:var(--accent)}
.wrap{max-width:1120px;margin:0 auto;padding:0 24px}
.site-header{position:sticky;top:0;z-index:10;background:rgba(255,255,255,.86);backdrop-filter:saturate(180%) blur(12px);-webkit-backdrop-filter:saturate(180%) blur(12px);border-bottom:1px solid var(--line)}
.site-header .wrap{display:flex;align-items:center;justify-content:space-between;gap:16px;min-height:68px}
.brand{display:inline-flex;align-items:center;gap:10px;font-weight:750;font-size:1.125rem;letter-spacing:-.01em;overflow-wrap:break-word;min-width:0;color:inherit;text-decoration:none}
.site-header .button{flex-shrink:1}
.brand-logo{display:block;height:32px;width:auto;max-width:140px;object-fit:contain}
.preview-note{margin:0;padding:8px 24px;background:#fef3c7;color:#78350f;font-size:.9rem;text-align:center}
.button{font:inherit;display:inline-flex;align-items:center;justify-content:center;gap:8px;padding:.8rem 1.4rem;border-radius:999px;border:1.5px solid var(--accent);font-weight:650;line-height:1.2;text-decoration:none;text-align:center;cursor:pointer;transition:transform .15s ease,box-shadow .15s ease,background-color .15s ease}
.button:hover{transform:translateY(-1px)}
.button:focus-visible{outline:3px solid color-mix(in srgb,var(--accent) 45%,transparent);outline-offset:3px}
.button--primary{background:var(--accent);color:#fff;box-shadow:0 10px 24px -12px var(--accent)}
.button--primary:hover{box-shadow:0 14px 28px -12px var(--accent)}
.button--secondary{background:#fff;color:var(--accent)}
.button--small{padding:.6rem 1.1rem;font-size:.95rem}
.button[disabled]{opacity:.6;cursor:progress;transform:none}
.hero{padding:104px 0 64px;background:radial-gradient(1100px 520px at 8% -12%,color-mix(in srgb,var(--glow) 16%,transparent),transparent 70%),radial-gradient(800px 420px at 100% 0,color-mix(in srgb,var(--glow) 9%,transparent),transparent 70%)}
.hero h1{font-size:clamp(2.2rem,5.2vw,3.75rem);line-height:1.08;letter-spacing:-.035em;margin:0 0 22px;max-width:22ch;overflow-wrap:anywhere}
.lead{font-size:clamp(1.1rem,2.1vw,1.35rem);color:var(--muted);max-width:60ch;margin:0 0 36px}
.actions{display:flex;flex-wrap:wrap;gap:12px}
.band{padding:32px 0}
.band--last{padding-bottom:96px}
.grid{display:grid;gap:24px;grid-template-columns:repeat(auto-fit,minmax(min(100%,320px),1fr))}
.card{background:var(--card);border:1px solid var(--line);border-radius:18px;padding:32px;box-shadow:0 1px 2px rgba(15,23,42,.04),0 8px 24px -16px rgba(15,23,42,.12)}
.card h2{font-size:1.3rem;line-height:1.3;letter-spacing:-.015em;margin:0 0 12px;overflow-wrap:anywhere}
.card p{margin:0 0 12px;color:var(--muted);overflow-wrap:anywhere}
.card p:last-child{margin-bottom:0}
.widget--action{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:16px}
.widget-title{margin:0;font-size:1.2rem;font-weight:700;color:var(--ink);letter-spacing:-.01em}
.card ul,.card ol{margin:0 0 12px;padding-left:1.25rem;color:var(--muted)}
.card li{margin:6px 0}
.card li:last-child{margin-bottom:0}
.card strong{color:var(--ink)}
.footer-text{margin:0 0 16px;color:#cbd5e1;max-width:70ch}
.widget h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.1em;color:var(--muted);font-weight:700}
.logos{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;align-items:center;gap:20px 40px}
.logos img{display:block;height:40px;width:auto;max-width:160px;object-fit:contain;filter:grayscale(1);opacity:.8;transition:filter .2s,opacity .2s}
.logos img:hover{filter:none;opacity:1}
.logo-name{font-weight:650;color:var(--muted)}
.form-card{max-width:760px;margin:0 auto;scroll-margin-top:96px}
.form-card>p{margin-bottom:24px}
.form-grid{display:grid;grid-template-columns:1fr 1fr;gap:18px}
.field{display:flex;flex-direction:column;gap:6px;font-weight:600;font-size:.92rem}
.field--wide{grid-column:1/-1}
.field input,.field textarea{font:inherit;font-weight:400;font-size:1rem;padding:.75rem .9rem;border:1px solid #cbd5e1;border-radius:12px;background:#fff;color:inherit;width:100%}
.field input:focus,.field textarea:focus{outline:none;border-color:var(--accent);box-shadow:0 0 0 4px color-mix(in srgb,var(--accent) 18%,transparent)}
.field textarea{min-height:132px;resize:vertical}
.form-footer{grid-column:1/-1;display:flex;flex-wrap:wrap;align-items:center;gap:16px}
.form-error{color:#b91c1c;margin:0}
.form-thanks{text-align:center;padding:24px 0}
.form-thanks h3{font-size:1.5rem;margin:0 0 8px}
.form-thanks p{margin:0}
.site-footer{background:#0f172a;color:#cbd5e1;padding:64px 0 32px}
.footer-groups{display:grid;gap:32px;grid-template-columns:repeat(auto-fit,minmax(180px,1fr));margin-bottom:48px}
.site-footer h2{font-size:.78rem;text-transform:uppercase;letter-spacing:.1em;color:#fff;margin:0 0 14px}
.site-footer ul{list-style:none;margin:0;padding:0}
.site-footer li{margin:8px 0}
.site-footer a{color:#cbd5e1;text-decoration:none}
.site-footer a:hover{color:#fff;text-decoration:underline}
.legal{border-top:1px solid #1e293b;padding-top:24px;font-size:.875rem;color:#94a3b8;margin:0}
.not-found{min-height:100vh;display:grid;place-items:center;padding:24px;text-align:center}
.not-found .card{max-width:520px}
.not-found .code{font-size:3.5rem;font-weight:800;letter-spacing:-.04em;color:var(--accent);margin:0}
[hidden]{display:none!important}
@media (max-width:680px){
.hero{padding:56px 0 40px}
.band{padding:20px 0}
.card{padding:24px}
.logos{gap:16px 28px}
.logos img{height:32px}
.form-grid{grid-template-columns:1fr}
.site-header .wrap{min-height:60px;gap:10px}
.brand{font-size:1rem;gap:8px}
.brand-logo{height:26px}
.button--small{padding:.5rem .9rem;font-size:.875rem}
}
@media (max-width:400px){.wrap{padding:0 16px}}
@media (prefers-reduced-motion:reduce){html{scroll-behavior:auto}*{transition:none!important}}
`;
