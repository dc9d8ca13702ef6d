-- The grower's public name (issue 39 item 8): what a shopper reads as "grown by" on the public
-- page of a published tree. Null until the owner publishes one; the username is never shown in
-- its place, since an account's sign-in name is not meant for the public.
alter table accounts add column if not exists public_name text;
