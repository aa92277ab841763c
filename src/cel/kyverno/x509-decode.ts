/** PEM → Go `x509` JSON. */
import { CelEvalError } from "../errors.js";

export function decodePem(_pem: string): unknown {
  throw new CelEvalError("x509.decode: not supported by celmap yet");
}
