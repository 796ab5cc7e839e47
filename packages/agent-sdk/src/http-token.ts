/** An RFC 9110 token: what HTTP allows in a method, a header name, or a Server-Timing metric name. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
