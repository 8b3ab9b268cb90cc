/** Model prices and the cost of a call. */
export { PRICE_TABLE, PRICES_AS_OF, type ModelPrice } from "./table.js";
export { costOf, normaliseModelName, priceOf, type PriceOverrides } from "./cost.js";
