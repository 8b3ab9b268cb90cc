/** The endpoint part of a request key: one address however it is spelled, never a credential. */
import { describe, expect, it } from "vitest";
import { endpointOf } from "../../src/keys/index.js";

describe("endpointOf", () => {
  it("is null without a base URL", () => {
    expect(endpointOf(undefined)).toBeNull();
  });

  it("keeps protocol, host, port, path and query, in one spelling", () => {
    expect(endpointOf("https://Api.Example.com:8443/v1//?api-version=2")).toBe("https://api.example.com:8443/v1?api-version=2");
    expect(endpointOf("http://localhost:11434/v1/")).toBe("http://localhost:11434/v1");
    expect(endpointOf("https://api.example.com")).toBe("https://api.example.com");
  });

  it("drops user, password, fragment and credential parameters", () => {
    expect(endpointOf("https://me:hunter22@gw.example/openai#section")).toBe("https://gw.example/openai");
    expect(endpointOf("https://gw.example/v1?key=k&api_key=k&token=t&client_secret=s&password=p&signature=x&sig=y&auth=z&Authorization=w&region=eu")).toBe(
      "https://gw.example/v1?region=eu",
    );
  });

  it("keeps parameters that only contain sig inside another word", () => {
    expect(endpointOf("https://gw.example/v1?signal=1&xsig=2&design=3&sig=4")).toBe("https://gw.example/v1?signal=1&xsig=2&design=3");
  });

  it("takes a base URL that is no URL as written, without trailing slashes", () => {
    expect(endpointOf("not a url//")).toBe("not a url");
    expect(endpointOf("gateway/v1")).toBe("gateway/v1");
  });
});
