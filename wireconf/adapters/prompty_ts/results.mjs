// What crosses back to the harness, as this adapter decides it (the rest is @wireconf/exec's asData
// and errorPayload).
//
// The adapter never adjusts Prompty's output. Representation only: a Prompty model object (a
// FailureChunk a stream yields) is shown as its own `save()` form, a StructuredResult as the plain
// data it carries (its raw JSON hides behind a symbol), undefined as null.

/** A Prompty model object as its `save()` data; anything else as it is. */
export function represent(value) {
  return typeof value.save === "function" ? value.save() : value;
}

/**
 * How exceptions are named. Two translations. JavaScript has no ValueError, and where the
 * specification's pseudocode raises ValueError (a value the algorithm cannot accept) Prompty's
 * TypeScript runtime throws the built-in `Error` itself: an exception whose class is exactly `Error` is
 * reported as a ValueError (mro `Error`, `ValueError`), so `expect_error: {type: ValueError, match:
 * ...}` judges its message. And the classes of a provider SDK's errors (`sdkErrors`: [base class,
 * package]) are named after their package, as the Python SDKs' are after their module
 * (`openai.NotFoundError`). Every other class keeps its name.
 */
export function errorOptions(places, sdkErrors) {
  return { places, sdkErrors, plainErrorAs: "ValueError" };
}
