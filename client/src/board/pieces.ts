// The pieces and special squares, drawn so that shape alone tells them apart:
// attackers are dark diamonds, defenders light discs, the king a light disc with a crown.

import { svg } from "../dom";
import type { Piece } from "./notation";

const SHAPES: Record<Piece, string> = {
  A: '<polygon points="50,7 93,50 50,93 7,50" fill="#2d2a32" stroke="#0c0b0e" stroke-width="5"/>' +
    '<polygon points="50,27 73,50 50,73 27,50" fill="none" stroke="#8f8798" stroke-width="4"/>',
  D: '<circle cx="50" cy="50" r="37" fill="#f7f1e3" stroke="#3b2f25" stroke-width="6"/>' +
    '<circle cx="50" cy="50" r="19" fill="none" stroke="#b8a98c" stroke-width="4"/>',
  K: '<circle cx="50" cy="50" r="42" fill="#f7f1e3" stroke="#3b2f25" stroke-width="6"/>' +
    '<path d="M24 66 L20 34 L36 48 L50 26 L64 48 L80 34 L76 66 Z" fill="#c9962b" stroke="#3b2f25" stroke-width="4" stroke-linejoin="round"/>' +
    '<rect x="24" y="68" width="52" height="8" rx="2" fill="#3b2f25"/>',
};

export const PIECE_NAMES: Record<Piece, string> = {
  A: "attacker",
  D: "defender",
  K: "king",
};

export function pieceSvg(piece: Piece, label?: string): SVGSVGElement {
  return svg(SHAPES[piece], `piece piece-${piece}`, label);
}

/** The throne's mark: a ring and a cross, drawn under any piece. */
export function throneSvg(label?: string): SVGSVGElement {
  return svg(
    '<rect x="10" y="10" width="80" height="80" fill="none" stroke="#7a4e1d" stroke-width="5"/>' +
      '<path d="M10 10 L90 90 M90 10 L10 90" stroke="#7a4e1d" stroke-width="3" opacity="0.55"/>',
    "mark mark-throne",
    label,
  );
}

/** A corner's mark: a castle-like square with an inner frame. */
export function cornerSvg(label?: string): SVGSVGElement {
  return svg(
    '<rect x="10" y="10" width="80" height="80" fill="none" stroke="#7a4e1d" stroke-width="5"/>' +
      '<rect x="24" y="24" width="52" height="52" fill="none" stroke="#7a4e1d" stroke-width="3" opacity="0.55"/>',
    "mark mark-corner",
    label,
  );
}
