/** The cassette modes alone, so that parsing the flags does not load the cassette machinery. */
export type CassetteMode = "live" | "record" | "auto" | "replay" | "update";
export const CASSETTE_MODES: readonly CassetteMode[] = ["live", "record", "auto", "replay", "update"];
