/**
 * Catalogue messages for one area of the service, merged into the one catalogue in
 * `../messages.ts`. Kept per area so parallel work on different areas never edits the same lines.
 */
export const populationMessages = {
  population_below_enrolled: {
    vi: 'Vùng {zone} đếm được {counted} con, ít hơn {enrolled} con đã đăng ký: có thể thiếu {missing} con.',
    en: 'Zone {zone} counted {counted} head, fewer than the {enrolled} enrolled: {missing} may be missing.',
  },
  population_sudden_drop: {
    vi: 'Vùng {zone} đếm được {counted} con, giảm đột ngột so với mức gần đây là {baseline} con.',
    en: 'Zone {zone} counted {counted} head, a sudden drop from its recent level of {baseline}.',
  },
  population_not_seen: {
    vi: 'Con vật {label} ở vùng {zone} chưa được nhận dạng lại trong {days_unseen} ngày.',
    en: 'Animal {label} in zone {zone} has not been re-identified for {days_unseen} days.',
  },
  population_media_mixed: {
    vi: 'Một lần đếm chỉ kèm ảnh hoặc một video, không kèm cả hai.',
    en: 'A count carries either photos or one video, not both.',
  },
  web_not_built: {
    vi: 'Giao diện web chưa được dựng trên máy chủ này. Hãy chạy npm run build.',
    en: 'The web app has not been built on this server. Run npm run build.',
  },
} as const satisfies Record<string, { vi: string; en: string }>;
