// <sift-search>'s stylesheet, in its shadow root: its own look, themed from outside by the
// custom properties it reads (--sift-*) and its parts (::part(…)).

export const STYLE = `
:host { all: initial; display: inline-block; font-family: var(--sift-font, system-ui, -apple-system, "Segoe UI", sans-serif);
  --_bg: var(--sift-bg, #ffffff); --_fg: var(--sift-fg, #1b1f24); --_muted: var(--sift-muted, #5b6470);
  --_accent: var(--sift-accent, #3451b2); --_border: var(--sift-border, #d6dae0); --_mark: var(--sift-mark-bg, #fff2a8);
  --_mark-fg: var(--sift-mark-fg, #1b1f24); --_sel: var(--sift-selected-bg, #e8edfb); --_radius: var(--sift-radius, 10px);
  --_backdrop: var(--sift-backdrop, rgba(20, 24, 31, .45)); }
:host([theme="dark"]) { --_bg: var(--sift-bg, #1d2128); --_fg: var(--sift-fg, #e6e9ee); --_muted: var(--sift-muted, #9aa3ae);
  --_accent: var(--sift-accent, #8ea8ff); --_border: var(--sift-border, #373d48); --_mark: var(--sift-mark-bg, #5c4d00);
  --_mark-fg: var(--sift-mark-fg, #fff6cc); --_sel: var(--sift-selected-bg, #2c3442); --_backdrop: var(--sift-backdrop, rgba(0, 0, 0, .6)); }
@media (prefers-color-scheme: dark) { :host(:not([theme="light"])) { --_bg: var(--sift-bg, #1d2128); --_fg: var(--sift-fg, #e6e9ee);
  --_muted: var(--sift-muted, #9aa3ae); --_accent: var(--sift-accent, #8ea8ff); --_border: var(--sift-border, #373d48);
  --_mark: var(--sift-mark-bg, #5c4d00); --_mark-fg: var(--sift-mark-fg, #fff6cc); --_sel: var(--sift-selected-bg, #2c3442);
  --_backdrop: var(--sift-backdrop, rgba(0, 0, 0, .6)); } }
*, *::before, *::after { box-sizing: border-box; }
/* Inherited properties set on the host by the page (color, letter-spacing, text-transform,
   line-height, even with !important) stop here: the subtree starts from initial values. */
.root { all: initial; display: contents; font-family: var(--sift-font, system-ui, -apple-system, "Segoe UI", sans-serif);
  font-size: 15px; line-height: 1.45; color: var(--_fg); }
.trigger { all: unset; cursor: pointer; display: inline-flex; align-items: center; gap: .5em; padding: .45em .7em; min-width: 12em;
  border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_bg); color: var(--_muted); font: inherit; font-size: 14px; }
.trigger:focus-visible { outline: 2px solid var(--_accent); outline-offset: 2px; }
kbd { font: 12px ui-monospace, monospace; border: 1px solid var(--_border); border-radius: 4px; padding: 0 .35em; margin-inline-start: auto; color: var(--_muted); }
dialog { all: revert; position: fixed; inset: 8vh 0 auto 0; margin: 0 auto; width: min(720px, calc(100vw - 24px)); max-height: 80vh; padding: 0;
  border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_bg); color: var(--_fg); font-size: 15px;
  line-height: 1.45; font-family: inherit; box-shadow: 0 18px 50px rgba(0, 0, 0, .25); overflow: hidden; }
dialog[open] { display: flex; flex-direction: column; }
dialog::backdrop { background: var(--_backdrop); }
.bar { display: flex; align-items: center; gap: .5em; padding: .7em .9em; border-bottom: 1px solid var(--_border); }
input { all: unset; flex: 1; font: inherit; font-size: 17px; color: var(--_fg); min-width: 0; }
input::placeholder { color: var(--_muted); }
.close { all: unset; cursor: pointer; font: 12px ui-monospace, monospace; border: 1px solid var(--_border); border-radius: 4px; padding: .1em .4em; color: var(--_muted); }
.facets { display: flex; flex-wrap: wrap; gap: .4em; padding: .5em .9em 0; }
.facets:empty { display: none; }
.chip { all: unset; cursor: pointer; font-size: 13px; padding: .15em .6em; border: 1px solid var(--_border); border-radius: 999px; color: var(--_muted); }
.chip[aria-pressed="true"] { background: var(--_accent); border-color: var(--_accent); color: var(--_bg); }
.chip:focus-visible { outline: 2px solid var(--_accent); outline-offset: 1px; }
.notice { padding: .5em .9em 0; font-size: 13px; color: var(--_muted); }
.notice:empty { display: none; }
.notice button { all: unset; cursor: pointer; color: var(--_accent); text-decoration: underline; }
.error { color: #c62828; }
:host([theme="dark"]) .error { color: #ff8a80; }
[role="listbox"] { list-style: none; margin: 0; padding: .4em; overflow-y: auto; flex: 1; }
[role="option"] { display: block; padding: .5em .7em; border-radius: calc(var(--_radius) - 4px); cursor: pointer; color: var(--_fg); }
[role="option"][aria-selected="true"] { background: var(--_sel); }
[role="option"].sub { margin-inline-start: 1.4em; padding-top: .3em; padding-bottom: .3em; border-inline-start: 2px solid var(--_border); border-radius: 0; border-start-end-radius: 6px; border-end-end-radius: 6px; }
.title { font-weight: 600; }
.sub .title { font-weight: 500; font-size: 14px; }
.where { font-size: 12px; color: var(--_muted); margin-inline-start: .4em; font-weight: 400; }
.snippet { font-size: 13.5px; color: var(--_muted); margin-top: .15em; overflow: hidden; display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; }
mark { background: var(--_mark); color: var(--_mark-fg); border-radius: 2px; padding: 0 1px; }
.footer { display: flex; gap: 1em; justify-content: space-between; padding: .45em .9em; border-top: 1px solid var(--_border); font-size: 12px; color: var(--_muted); }
.empty { padding: 1.2em .9em; color: var(--_muted); }
[role="group"] { margin: 0; padding: 0; }
.group { padding: .6em .7em .2em; font-size: 12px; font-weight: 600; letter-spacing: .04em; text-transform: uppercase; color: var(--_muted); }
[role="listbox"]:empty { display: none; }
.history { overflow-y: auto; padding: .2em .4em .5em; flex: 1; }
.history:empty { display: none; }
.history h2 { margin: .6em .7em .2em; font-size: 12px; font-weight: 600; letter-spacing: .04em; text-transform: uppercase; color: var(--_muted); }
.history ul { list-style: none; margin: 0; padding: 0; }
.history li { display: flex; align-items: center; gap: .2em; border-radius: calc(var(--_radius) - 4px); }
.history li:hover, .history li:focus-within { background: var(--_sel); }
.history button { all: unset; cursor: pointer; border-radius: 6px; color: var(--_fg); }
.history button:focus-visible { outline: 2px solid var(--_accent); outline-offset: -2px; }
.history .again { flex: 1; padding: .5em .7em; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.history .again .where { margin-inline-start: .6em; }
.history .act { padding: .35em .6em; color: var(--_muted); font-size: 15px; }
/* A phone: the box is the whole screen, with room for a thumb. */
@media (max-width: 640px) {
  dialog { inset: 0; width: 100vw; max-width: 100vw; height: 100dvh; max-height: 100dvh; border: 0; border-radius: 0; }
  .bar { padding: .8em; }
  [role="option"], .history .again { padding-top: .7em; padding-bottom: .7em; }
  .history .act { padding: .7em .8em; }
  kbd { display: none; }
  .trigger { min-width: 0; }
}
`;
