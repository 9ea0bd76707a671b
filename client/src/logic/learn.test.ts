import { describe, expect, it } from "vitest";
import { goingOnText, nextStage, progressText, stageAfter } from "./learn";
import type { LessonCourse, LessonStage } from "../network/learn";

function stage(id: string, kind: "board" | "game" = "board"): LessonStage {
  return { id, title: id, kind, task: "", explanation: "", hint: "", side: "attackers", start: "", prelude: [], position: "", moves: 1, legal: [], bot_level: kind === "game" ? 1 : 0 };
}
const course: LessonCourse = { ruleset: "nielsen", title: "Nielsen", stages: [stage("moving"), stage("capture"), stage("escape"), stage("first-game", "game")] };

describe("the lessons' progress", () => {
  it("marks the first stage without a star, then the game", () => {
    expect(nextStage(course, [])).toBe("moving");
    expect(nextStage(course, ["moving"])).toBe("capture");
    expect(nextStage(course, ["moving", "escape"])).toBe("capture");
    expect(nextStage(course, ["moving", "capture", "escape"])).toBe("first-game");
  });
  it("counts the boards' stars only", () => {
    expect(progressText(course, [])).toBe("0 of 3 stars");
    expect(progressText(course, ["capture", "gone"])).toBe("1 of 3 stars");
  });
  it("goes to the next stage, none after the last", () => {
    expect(stageAfter(course, "moving")).toBe("capture");
    expect(stageAfter(course, "first-game")).toBeNull();
    expect(stageAfter(course, "nowhere")).toBeNull();
  });
  it("says the other side's answer and the moves left", () => {
    const verdict = { status: "continue" as const, move: "Kc3-c7", reply: "e4-e5", position: "", message: "", moves_left: 1, legal: [], star: false };
    expect(goingOnText(verdict, "defenders")).toBe("The attackers answered e4-e5. 1 move left.");
    expect(goingOnText({ ...verdict, moves_left: 2 }, "attackers")).toBe("The defenders answered e4-e5. 2 moves left.");
  });
});
