// The server's end-of-run `window/showMessage` repeats, for generic clients, the
// message of its `autodd/finished`. This extension shows that message itself
// (with buttons), so it drops exactly those repeats: a showMessage whose text is
// the text of a message it has shown or is about to show. Nothing else is ever
// dropped (warnings and errors from the server are shown as they come).
// Pure module (no `vscode` import; time is passed in) so unit tests can load it.

/** Texts this extension shows itself; each drops one identical server echo. */
export class EchoFilter {
  private readonly expected: { text: string; until: number }[] = [];

  /** `windowMs`: how long after being expected an echo is still recognized. */
  constructor(private readonly windowMs = 10_000) {}

  /** Records a message this extension shows itself (at time `now`, in ms). */
  expect(text: string, now: number): void {
    this.prune(now);
    this.expected.push({ text: text.trim(), until: now + this.windowMs });
  }

  /** Whether `text`, shown by the server at `now`, repeats an expected message; consumes it. */
  isEcho(text: string, now: number): boolean {
    this.prune(now);
    const i = this.expected.findIndex((e) => e.text === text.trim());
    if (i < 0) return false;
    this.expected.splice(i, 1);
    return true;
  }

  private prune(now: number): void {
    for (let i = this.expected.length - 1; i >= 0; i--) {
      if (this.expected[i].until < now) this.expected.splice(i, 1);
    }
  }
}
