-- Live DoD announcements (src/pipeline/live-announcements.ts): where each paragraph was read, the
-- versions of a paragraph amended after posting, the articles read (for conditional requests and
-- content hashes) and the state of the live poll (for /health, /metrics and the dashboard).

ALTER TABLE announcements
  -- The article the paragraph was read from; null for a paragraph read from a file.
  ADD COLUMN source_url text,
  ADD COLUMN article_id text,
  -- When the article was fetched with this paragraph on it, and the sha256 of its release text then.
  ADD COLUMN fetched_at timestamptz,
  ADD COLUMN content_hash text,
  -- The earlier version of this paragraph (an amended page corrected it); that version stays as it was.
  ADD COLUMN supersedes text,
  -- When the public could know this paragraph: announced_at, or later for one an amendment added.
  ADD COLUMN available_at timestamptz;
UPDATE announcements SET available_at = announced_at;
ALTER TABLE announcements ALTER COLUMN available_at SET NOT NULL;

-- An announcement event's article (the paragraph's source_url); null for awards and file-read paragraphs.
ALTER TABLE contracts ADD COLUMN source_url text;

-- One row per article read: its validators and release hash (the next poll asks conditionally).
CREATE TABLE announcement_pages (
  article_id text PRIMARY KEY,
  url text NOT NULL,
  announced_on date NOT NULL,
  etag text,
  last_modified text,
  content_hash text NOT NULL,
  paragraphs integer NOT NULL,
  first_fetched_at timestamptz NOT NULL DEFAULT now(),
  fetched_at timestamptz NOT NULL DEFAULT now(),
  changed_at timestamptz NOT NULL DEFAULT now()
);

-- The live poll's state, shared by every process of a cluster (one of them polls).
CREATE TABLE announcement_polls (
  source text PRIMARY KEY,
  last_poll_at timestamptz,
  last_success_at timestamptz,
  -- The newest release date the feed listed and its article, and when a page last brought news.
  last_page_date date,
  last_page_url text,
  last_new_at timestamptz,
  last_error text,
  last_error_at timestamptz,
  last_refused_at timestamptz,
  next_run_at timestamptz
);
