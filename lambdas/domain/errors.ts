/** Errors that carry the HTTP status and the exact message a client sees. One place maps them. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthorized = () => new ApiError(401, 'Unauthorized');
export const notFound = () => new ApiError(404, 'Not found');
export const payloadTooLarge = () => new ApiError(413, 'request body too large');
