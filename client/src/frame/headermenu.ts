// The header's menu on narrow screens: one button (aria-expanded) that shows and hides the
// sections past "Play" and "Your games" and the account's links; CSS decides the width.

import "./header.css";

let close: () => void = () => {};

/** Wire the menu button to its panel: click or Enter/Space toggles it; Escape, a click
 *  elsewhere or following a link closes it (Escape gives the focus back to the button). */
export function installHeaderMenu(header: HTMLElement, button: HTMLButtonElement, panel: HTMLElement): void {
  const setOpen = (open: boolean) => {
    button.setAttribute("aria-expanded", String(open));
    header.dataset.menu = open ? "open" : "closed";
  };
  close = () => setOpen(false);
  setOpen(false);
  button.addEventListener("click", () => {
    const open = button.getAttribute("aria-expanded") !== "true";
    setOpen(open);
    if (open) panel.querySelector<HTMLElement>("a, button")?.focus();
  });
  header.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || header.dataset.menu !== "open") return;
    setOpen(false);
    button.focus();
  });
  document.addEventListener("click", (e) => {
    const target = e.target as Node | null;
    if (header.dataset.menu !== "open" || !target) return;
    if (button.contains(target)) return;
    // A link inside the panel navigates (and closes it through the router); a click on the
    // panel's own background keeps it open.
    if (panel.contains(target) && !(target as Element).closest?.("a, button")) return;
    setOpen(false);
  });
}

/** Fold the menu away (the router calls this on every page change). */
export function closeHeaderMenu(): void {
  close();
}
