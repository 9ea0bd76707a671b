// The full rules of each rule set, as docs/rules.md states them.

export interface RuleSection {
  heading: string;
  items: string[];
}

export interface RulesPage {
  id: string;
  title: string;
  intro: string;
  sections: RuleSection[];
}

const BOARD: RuleSection = {
  heading: "Board and pieces",
  items: [
    "The board has 7 × 7 squares: files a–g from the left, ranks 1–7 from the bottom.",
    "The throne is the centre square d4; the corners are a1, a7, g1 and g7.",
    "At the start the king stands on the throne (d4), his four defenders beside him (c4, e4, d3, d5), and the eight attackers in pairs at the middle of each edge (a4, b4, f4, g4, d1, d2, d6, d7).",
    "The attackers move first; then the sides take turns.",
  ],
};

const NOTATION: RuleSection = {
  heading: "Move notation",
  items: [
    "A move is written as its start and end squares: d1-c1.",
    "A king move starts with K: Kd4-d7.",
    "Each square captured by the move follows with x, in order of file then rank: c4-c7xb7xc6.",
    "When you type a move, the K and the captures may be left out (d4-d7 is enough); captures you do give must be the real ones.",
    "The move list numbers each attackers' move with the defenders' reply: 1. d1-c1 d3-c3.",
  ],
};

const SITE: RuleSection = {
  heading: "Rules of this site (every rule set)",
  items: [
    "Each move has a deadline (chosen when the game is created); a side whose deadline passes loses.",
    "After 400 plies the game is a draw.",
    "A game may also end by resignation or by agreeing a draw.",
    "When a position has come round twice, a warning is shown: the third time ends the game as this rule set says.",
  ],
};

function slide(opts: {
  throne: string[];
  capture: string[];
  king: string[];
  end: string[];
}): RuleSection[] {
  return [
    BOARD,
    {
      heading: "Moving",
      items: [
        "Every piece, the king included, moves like a rook in chess: any number of empty squares along a rank or a file, never jumping over a piece.",
        "Only the king may stop on a corner.",
        ...opts.throne,
      ],
    },
    {
      heading: "Capturing",
      items: [
        "A soldier (attacker or defender) is captured when the moving side closes on it from both sides along a line: it stands between two enemies, or between an enemy and a hostile square.",
        "Only the piece that has just moved captures: a piece that already stood between two enemies is safe until an enemy moves to enclose it again.",
        "The king takes part in captures with his defenders (he is armed: he can be the hammer or the anvil).",
        "One move may capture up to three pieces at once.",
        "There are no captures against the edge of the board.",
        ...opts.capture,
      ],
    },
    { heading: "Capturing the king", items: opts.king },
    { heading: "End of the game", items: opts.end },
    NOTATION,
    SITE,
  ];
}

const CORNERS_HOSTILE = "The four corners are hostile to everybody, the king included: they count as an enemy when enclosing a piece.";
const KING_ON_THRONE_ARMED = "While the king sits on the throne, he himself is an enemy of the attackers beside him.";
const DEFENDERS_WIN = "The defenders win when the king reaches a corner, or when every attacker has been captured.";
const ATTACKERS_WIN = "The attackers win when they capture the king.";

export const RULES: Record<string, RulesPage> = {
  nielsen: {
    id: "nielsen",
    title: "Nielsen",
    intro:
      "Aage Nielsen's reconstruction of Brandubh, with the decisions of his site. This is the default rule set.",
    sections: slide({
      throne: [
        "Nobody may stop on the throne: once the king has left it he may not return.",
        "Every piece may pass over the empty throne.",
      ],
      capture: [
        CORNERS_HOSTILE,
        "The empty throne is hostile to attackers and defenders alike.",
        KING_ON_THRONE_ARMED,
        "A piece between an enemy and the empty throne is captured when the mover closes on it.",
      ],
      king: [
        "On the open board the king is captured by two attackers on opposite sides, or by one attacker with a corner on the other side.",
        "Beside the throne he needs three attackers on his other three sides (the moving attacker completes the three).",
        "On the throne he needs four attackers, one on each side.",
      ],
      end: [
        DEFENDERS_WIN,
        ATTACKERS_WIN,
        "A side that has no legal move: the game is a draw.",
        "A position that comes round for the third time with the same side to move: the game is a draw (a warning is shown after the second time).",
      ],
    }),
  },
  federation: {
    id: "federation",
    title: "World Tafl Federation",
    intro:
      "The World Tafl Federation's Brandubh, as played in tournaments. Captures are as in Nielsen's rules; blocked positions and repetitions are judged more strictly.",
    sections: slide({
      throne: [
        "Nobody may stop on the throne: once the king has left it he may not return.",
        "Every piece may pass over the empty throne.",
      ],
      capture: [
        CORNERS_HOSTILE,
        "The empty throne is hostile to attackers and defenders alike (and always to attackers: with the king on it, he is the enemy).",
        KING_ON_THRONE_ARMED,
      ],
      king: [
        "On the open board the king is captured by two attackers on opposite sides, or by one attacker with a corner on the other side.",
        "Beside the throne he needs three attackers on his other three sides.",
        "On the throne he needs four attackers, one on each side.",
      ],
      end: [
        DEFENDERS_WIN,
        ATTACKERS_WIN,
        "A side that has no legal move loses.",
        "A position that comes round for the third time with the same side to move: the defenders lose, whoever repeated.",
      ],
    }),
  },
  common: {
    id: "common",
    title: "Common online rules",
    intro:
      "The rules most often played online: the king may go home to the throne, the throne never harms the king, and whoever repeats a position a third time loses.",
    sections: slide({
      throne: [
        "Only the king may stop on the throne, and he may return to it.",
        "Every piece may pass over the empty throne.",
      ],
      capture: [
        CORNERS_HOSTILE,
        "The empty throne is hostile to attackers and defenders, but never to the king.",
        KING_ON_THRONE_ARMED,
      ],
      king: [
        "Anywhere off the throne, beside it too, the king is captured by two attackers on opposite sides, or by one attacker with a corner on the other side.",
        "On the throne he needs four attackers, one on each side.",
      ],
      end: [
        DEFENDERS_WIN,
        ATTACKERS_WIN,
        "A side that has no legal move loses.",
        "A position that comes round for the third time with the same side to move: the player whose move made it loses.",
      ],
    }),
  },
  walker: {
    id: "walker",
    title: "Walker's Brandub",
    intro:
      "Damian Walker's reconstruction, played on points in his book (the same as squares here): only the corners are hostile, and the king is taken by two everywhere.",
    sections: slide({
      throne: [
        "Only the king may stop on the throne, and he may return to it.",
        "Every piece may pass over the empty throne.",
      ],
      capture: [
        "The four corners are hostile to everybody, the king included. The empty throne is hostile to nobody.",
        KING_ON_THRONE_ARMED,
      ],
      king: [
        "The king is captured by two attackers on opposite sides in a line, everywhere: on the open board, beside the throne and on the throne itself.",
        "One attacker with a corner on the other side also captures him.",
      ],
      end: [
        DEFENDERS_WIN,
        ATTACKERS_WIN,
        "A side that still has pieces but no legal move: the game is a draw. (An attacking side with no piece left has lost.)",
        "A position that comes round for the third time with the same side to move: the game is a draw.",
      ],
    }),
  },
  newsome: {
    id: "newsome",
    title: "Newsome's Gaelic game",
    intro:
      "A different game on the same board and from the same start: the king and his princes (the defenders) against the barons (the attackers). Pieces step rather than slide, and capture by moving onto an enemy.",
    sections: [
      BOARD,
      {
        heading: "Moving",
        items: [
          "The squares form a checkerboard of white and dark squares in which the corners and the throne are white (a1 is white, b1 dark, and so on). On this site's board the white squares are the lighter ones.",
          "Every piece moves one square along a rank or file, or one square diagonally from a white square to a white square.",
          "Princes and barons (not the king) may instead move two squares diagonally along white squares, when the square passed over and the destination are both empty.",
          "Only the king may stop on, or pass over, the throne. Anyone may stop on a corner.",
        ],
      },
      {
        heading: "Capturing",
        items: [
          "A capture is a one-square move onto an enemy piece, which is removed (capture by replacement).",
          "Any piece, the king included, captures along a rank or file; only princes and barons capture diagonally (one square, along white squares).",
          "One move captures at most one piece. The move text names the destination twice: c3-c4xc4.",
          "The king can never be captured: nothing may move onto him.",
          "Lost in the woods: a prince who ends three plies in a row on a corner (both sides' turns count, the ply he arrived on is the first) is removed at the end of the third.",
          "Nothing is hostile: corners and throne take no part in captures.",
        ],
      },
      {
        heading: "End of the game",
        items: [
          "The princes (defenders) win when every baron has been removed.",
          "The barons (attackers) win when every prince has been removed.",
          "A side that has no legal move: the game is a draw.",
          "A position that comes round for the third time with the same side to move: the game is a draw.",
        ],
      },
      {
        heading: "Balance",
        items: [
          "Under this site's reading of the rules the barons (attackers) can force a win from the start within seven plies, whatever the princes answer (one such line: d6-d5xd5 c4-b4xb4 a4-b4xb4 e4-f4xf4 g4-f4xf4 d3-d2xd2 d1-d2xd2; checked exhaustively by the bot's search; docs/bot.md). A two-game match, each side attacking once, is the fair way to play it.",
        ],
      },
      NOTATION,
      SITE,
    ],
  },
};

export const RULESET_ORDER = ["nielsen", "federation", "common", "walker", "newsome"];
