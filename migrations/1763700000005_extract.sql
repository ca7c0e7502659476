-- Up Migration
-- Which version of the OTP detector looked at a message (0: none yet). GET …/otp runs the current one again on
-- messages an older version found nothing in.
ALTER TABLE messages ADD COLUMN otp_version smallint NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE messages DROP COLUMN otp_version;
