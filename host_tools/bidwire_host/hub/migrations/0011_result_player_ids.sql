-- Each pair's players' national numbers as the club's register has them ("1001 & 1002", in the order of the
-- names; "" where not known), so that the combined USEBIO credits the players themselves (issue 40).
ALTER TABLE results ADD COLUMN ns_ids text NOT NULL DEFAULT '';
ALTER TABLE results ADD COLUMN ew_ids text NOT NULL DEFAULT '';
