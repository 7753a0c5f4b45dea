/** Errors the tools answer about a submission or their sources, each naming the offending path. */
import { type AppError, invalid } from '../platform/errors';

/** A 400 for a submission that is well-formed but wrong about the sources; `path` is under `submission/`. */
export function submissionError(path: string, message: string): AppError {
  const full = path ? `submission/${path}` : 'submission';
  return invalid(full, message);
}

/** A 400 for a start whose sources cannot give a result (e.g. nothing in common), naming the sources. */
export function sourcesError(message: string, index?: number): AppError {
  const path = index === undefined ? 'source_blueprint_ids' : `source_blueprint_ids/${index}`;
  return invalid(path, message);
}
