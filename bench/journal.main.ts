import { benchJournal } from "./journal.js";

await benchJournal();
