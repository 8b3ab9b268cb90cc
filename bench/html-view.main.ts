import { benchHtmlView } from "./html-view.js";

await benchHtmlView();
