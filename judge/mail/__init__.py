"""Mail in and out: decoding what players send, inbound rules, and delivery."""
