// The server's answers to `workspace/executeCommand`, made into the protocol's
// types. On the wire an answer is untyped (`unknown`: another server version, a
// null, a field missing); these normalizers never throw and never trust a field
// they have not checked, so the flow (minimize.ts) handles only well-formed values.
// Pure module (no `vscode` import) so unit tests can load it.

import type { ArtifactResult, EnvironmentProblem, MinimizeReply, SuggestedFailure, SuggestErrMsgResult } from './protocol';

function fields(raw: unknown): Record<string, unknown> {
  return typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
}

/** The immediate reply to `autodd.minimize`: started (runId, outputUri) or failed (its message). */
export function normalizeReply(raw: unknown): MinimizeReply {
  const r = fields(raw);
  if (r.status === 'started' && typeof r.runId === 'string' && typeof r.outputUri === 'string') {
    return { status: 'started', runId: r.runId, uri: typeof r.uri === 'string' ? r.uri : '', outputUri: r.outputUri };
  }
  const message = typeof r.message === 'string' && r.message ? r.message : `unexpected answer ${JSON.stringify(raw)}`;
  return { status: 'failed', message };
}

/** The refusal of `autodd.suggestErrMsg` (`{error}`: the file cannot be run), if it is one. */
export function suggestionError(raw: unknown): string | undefined {
  const error = fields(raw).error;
  return typeof error === 'string' && error ? error : undefined;
}

/**
 * The `environment` of an `autodd.suggestErrMsg` answer (the trial run lacked one of
 * the program's own top-level imports), if it has a usable one: its `message` at least.
 */
export function suggestionEnvironment(raw: unknown): EnvironmentProblem | undefined {
  const e = fields(fields(raw).environment);
  if (typeof e.message !== 'string' || !e.message) return undefined;
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return { python: str(e.python), version: str(e.version), module: str(e.module), message: e.message };
}

/**
 * The answer of `autodd.suggestErrMsg`: its message suggestions, its failures of
 * other kinds (each `{title, arguments}` with a non-empty title and an object of
 * arguments, whatever kind they name), the output tail, the exit code.
 */
export function normalizeSuggestions(raw: unknown): SuggestErrMsgResult {
  const r = fields(raw);
  const environment = suggestionEnvironment(raw);
  const failures: SuggestedFailure[] = [];
  for (const item of Array.isArray(r.failures) ? r.failures : []) {
    const f = fields(item);
    const args = f.arguments;
    if (typeof f.title === 'string' && f.title && typeof args === 'object' && args !== null && !Array.isArray(args)) {
      if (Object.keys(args).length) failures.push({ title: f.title, arguments: { ...(args as Record<string, unknown>) } });
    }
  }
  return {
    suggestions: Array.isArray(r.suggestions)
      ? r.suggestions.filter((s): s is string => typeof s === 'string')
      : [],
    failures,
    outputTail: typeof r.outputTail === 'string' ? r.outputTail : '',
    returncode: typeof r.returncode === 'number' ? r.returncode : null,
    ...(environment ? { environment } : {}),
  };
}

/** The answer of `autodd.writeReport` / `autodd.writeTest`; undefined when there is none. */
export function normalizeArtifact(raw: unknown): ArtifactResult | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = fields(raw);
  if (r.ok === true && typeof r.path === 'string' && typeof r.uri === 'string') {
    return { ok: true, path: r.path, uri: r.uri };
  }
  const message = typeof r.message === 'string' && r.message ? r.message : `unexpected answer ${JSON.stringify(raw)}`;
  return { ok: false, message };
}
