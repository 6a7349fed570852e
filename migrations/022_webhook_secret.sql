-- The secret_token of each bot's webhook (bot/webhook.go), shared by every process of the bot so
-- that any of them accepts its deliveries. Made by the first process in webhook mode; clearing it
-- and restarting a receiving process makes a new one.
ALTER TABLE service ADD COLUMN webhook_secret text;
