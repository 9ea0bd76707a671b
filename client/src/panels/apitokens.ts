// The account page's "API tokens" section (docs/api.md): make a token with a name and
// scopes, see its text once (with Copy and a warning that it will not be shown again),
// and the list of live tokens with Revoke, confirmed in place.

import { type ApiToken, type CreatedToken, NAME_MAX, SCOPES, formProblem, lastUsedText, tokenErrorText, tokensApi } from "../network/tokens";
import { dateText } from "../network/account";
import { clear, copyText, h } from "../dom";

export function apiTokensSection(): HTMLElement {
  const name = h("input", { id: "token-name", name: "token-name", maxlength: String(NAME_MAX), autocomplete: "off", placeholder: "e.g. my engine on the laptop", "aria-describedby": "token-name-hint" });
  const boxes = SCOPES.map((scope) => {
    const id = `scope-${scope.id.replace(":", "-")}`;
    const box = h("input", { type: "checkbox", id, value: scope.id, "aria-describedby": `${id}-text` });
    return {
      box,
      row: h("div", { class: "token-scope" }, box, h("label", { for: id }, h("code", { text: scope.id }), h("span", { class: "hint", id: `${id}-text`, text: scope.text }))),
    };
  });
  const error = h("p", { class: "error", role: "alert", id: "token-error" });
  const submit = h("button", { type: "submit", class: "btn btn-primary", id: "token-create", text: "Create the token" });
  const form = h(
    "form",
    { id: "token-form", novalidate: true },
    h(
      "div",
      { class: "field" },
      h("label", { for: "token-name", text: "Name" }),
      name,
      h("p", { class: "hint", id: "token-name-hint", text: "What will use it, so you know which to revoke." }),
    ),
    h("fieldset", { class: "token-scopes" }, h("legend", { text: "What it may do" }), ...boxes.map((b) => b.row)),
    error,
    submit,
  );
  const fresh = h("div", { id: "token-new", class: "token-new", hidden: true });
  const list = h("ul", { id: "token-list", class: "token-list" });
  const listError = h("p", { class: "error", role: "alert", id: "token-list-error" });
  const count = h("span", { class: "muted", id: "token-count" });
  const section = h(
    "section",
    { class: "panel api-tokens", id: "api-tokens", "aria-labelledby": "api-tokens-title" },
    h("h2", { id: "api-tokens-title", text: "API tokens" }),
    h("p", {
      class: "hint",
      text: "A token lets a program of yours — an engine playing as a bot, a tool that reads your games — act for this account, only as far as the scopes you tick. It sends the token as “Authorization: Bearer …”. Keep it secret, like a password.",
    }),
    form,
    fresh,
    h("h3", {}, "Your tokens ", count),
    list,
    listError,
  );

  function render(tokens: ApiToken[]): void {
    clear(list);
    count.textContent = `(${tokens.length} of 20)`;
    if (tokens.length === 0) list.append(h("li", { class: "muted", id: "tokens-empty", text: "No tokens yet." }));
    for (const t of tokens) list.append(item(t));
  }

  async function reload(): Promise<void> {
    try {
      render((await tokensApi.list()).tokens);
      listError.textContent = "";
    } catch (err) {
      listError.textContent = tokenErrorText(err);
    }
  }

  function item(t: ApiToken): HTMLElement {
    const li = h("li", { class: "token-item", "data-token": t.id });
    const actions = h("div", { class: "token-actions" });
    const revoke = h("button", { type: "button", class: "btn btn-small btn-danger-quiet token-revoke", text: "Revoke" });
    const ask = () => {
      clear(actions);
      const yes = h("button", { type: "button", class: "btn btn-small btn-danger token-revoke-yes", text: "Revoke" });
      const no = h("button", { type: "button", class: "btn btn-small token-revoke-no", text: "Cancel" });
      const said = h("span", { class: "error", role: "alert" });
      yes.addEventListener("click", async () => {
        yes.disabled = no.disabled = true;
        try {
          await tokensApi.revoke(t.id);
          await reload();
        } catch (err) {
          said.textContent = tokenErrorText(err);
          yes.disabled = no.disabled = false;
        }
      });
      no.addEventListener("click", () => {
        clear(actions);
        actions.append(revoke);
        revoke.focus();
      });
      actions.append(h("span", { class: "token-confirm", text: "Revoke it? Programs using it stop working at once." }), yes, no, said);
      no.focus();
    };
    revoke.addEventListener("click", ask);
    actions.append(revoke);
    li.append(
      h("div", { class: "token-name", text: t.name }),
      h("div", { class: "token-scope-list" }, ...t.scopes.map((s) => h("code", { text: s }))),
      h("div", { class: "hint token-times", text: `Created ${dateText(t.created)} · last used ${lastUsedText(t.last_used)}` }),
      actions,
    );
    return li;
  }

  function show(made: CreatedToken): void {
    clear(fresh);
    const text = h("input", { id: "token-text", class: "invite-link", readonly: true, value: made.token, "aria-label": "Your new token", spellcheck: "false" });
    const copied = h("span", { class: "copy-done", role: "status", "aria-live": "polite", id: "token-copied" });
    const copy = h("button", { type: "button", class: "btn", id: "token-copy", text: "Copy" });
    copy.addEventListener("click", async () => {
      const ok = await copyText(made.token, text);
      copied.textContent = ok ? "Copied." : "Select the token and copy it yourself.";
    });
    const done = h("button", { type: "button", class: "btn btn-small", id: "token-done", text: "I have copied it" });
    done.addEventListener("click", () => {
      clear(fresh);
      fresh.hidden = true;
      name.focus();
    });
    fresh.append(
      h("p", { class: "token-warning", id: "token-warning" }, h("strong", { text: `Copy your new token “${made.name}” now.` }), " It will not be shown again: the site keeps only a fingerprint of it. If you lose it, revoke it and make another."),
      h("div", { class: "invite-row" }, text, copy),
      copied,
      done,
    );
    fresh.hidden = false;
    text.focus();
    text.select();
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    const scopes = boxes.filter((b) => b.box.checked).map((b) => b.box.value);
    const problem = formProblem(name.value, scopes);
    if (problem) {
      error.textContent = problem;
      return;
    }
    submit.disabled = true;
    try {
      const made = await tokensApi.create(name.value.trim(), scopes);
      name.value = "";
      for (const b of boxes) b.box.checked = false;
      show(made);
      await reload();
    } catch (err) {
      error.textContent = tokenErrorText(err);
    }
    submit.disabled = false;
  });

  void reload();
  return section;
}
