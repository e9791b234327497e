# Lemmas A.5 and A.6 against d: the balanced fraction and the normalised second moment of region masses.
# Usage: gnuplot -e "csv='results/routing_balance.csv'; png='results/routing_balance.png'" plots/routing_balance.gp
# CSV columns: m,k,d,law,d_over_k_log2m,regions,first_mass_mean,first_mass_std_error,second_moment_mean,second_moment_std_error,
#              second_moment_asymptotic,c2,balanced_fraction_mean,balanced_fraction_std_error,points,trials
if (!exists("csv")) csv = 'results/routing_balance.csv'
if (!exists("png")) png = 'results/routing_balance.png'

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1500,620 enhanced font ",11"
} else {
  set terminal png size 1500,620
}
set output png
set datafile separator comma
set datafile columnheaders
set multiplot layout 1, 2 title "Routing regions of Gaussian top-k routers against d (granularity paper, Lemmas 3.2, A.5, A.6)"
set grid
set logscale x 2
colors = "#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b"
shapes = "8,2 8,4 12,2 12,4 16,2 16,4"
mm(i) = int(word(shapes, i)[1:strstrt(word(shapes, i), ",") - 1])
kk(i) = int(word(shapes, i)[strstrt(word(shapes, i), ",") + 1:])
set xlabel "d / (k (log m)^2)"
set ylabel "fraction of regions with mass >= 1/(2 C(m,k))"
set yrange [0:1.05]
set key bottom right box opaque
set arrow 1 from 1, graph 0 to 1, graph 1 nohead dt 3 lw 1.5 lc rgb "gray40"
set label 1 "d = k (log m)^2" at 1.08, 0.05 left tc rgb "gray30"
plot for [i=1:6] csv using ($1 == mm(i) && $2 == kk(i) ? $5 : 1/0):13:14 with yerrorlines pt 7 ps 0.8 lc rgb word(colors, i) \
       title sprintf("(m, k) = (%d, %d)", mm(i), kk(i)), \
     1.0/9 with lines dt 2 lw 2 lc rgb "black" title "Lemma A.6: 1/9"
unset arrow 1
unset label 1
set logscale y 10
set yrange [*:*]
set xlabel "d"
set ylabel "C(m,k)^2 E mu(U_S)^2 - 1"
set key top right box opaque
plot for [i=1:6] csv using ($1 == mm(i) && $2 == kk(i) ? $3 : 1/0):($9 - 1):10 with yerrorbars pt 7 ps 0.8 lc rgb word(colors, i) \
       title sprintf("(%d, %d) Monte-Carlo", mm(i), kk(i)), \
     for [i=1:6] csv using ($1 == mm(i) && $2 == kk(i) ? $3 : 1/0):($11 - 1) with lines lw 1.5 lc rgb word(colors, i) notitle, \
     2 with lines dt 2 lw 2 lc rgb "black" title "Lemma A.5: C^2 E mu^2 <= 3", \
     NaN with lines lw 1.5 lc rgb "gray40" title "lines: c2(m,k)/d (Mehler; a lower bound)"
unset multiplot
