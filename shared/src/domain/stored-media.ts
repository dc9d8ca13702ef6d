/** A stored upload as a route hands it to a service (api/src/services/media.service.ts writes it). */
export interface StoredMedia {
  cid: string;
  filename: string;
  contentType: string;
  size: number;
  /** This request wrote the bytes (they were not stored before): only then may it ever release them. */
  created: boolean;
}
